// Real parts: child processes.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { HttpRequest, HttpResponse, HttpSender } from '../http/client.js';
import { killAfterSendFromEnv } from './test-hooks.js';

// A sender that answers every request 200: the hook's input, not a fake of Kafka Connect.
function answering(): HttpSender & { seen: HttpRequest[] } {
  const seen: HttpRequest[] = [];
  return { seen, send: async (req): Promise<HttpResponse> => { seen.push(req); return { status: 200, headers: {}, body: Buffer.from('{}'), durationMs: 0 }; } };
}

test('OFFSETCTL_TEST_KILL_AFTER_SEND unset: the CLI hands applyPlan its own sender unchanged', () => {
  const http = answering();
  assert.equal(killAfterSendFromEnv(http, {}), http);
});

test('OFFSETCTL_TEST_KILL_AFTER_SEND=PATCH: other requests pass through; the PATCH on …/offsets is sent, then the process dies', async () => {
  const http = answering();
  const wrapped = killAfterSendFromEnv(http, { OFFSETCTL_TEST_KILL_AFTER_SEND: 'patch' });
  assert.equal((await wrapped.send({ method: 'GET', url: 'http://w/connectors/c/offsets', headers: {} })).status, 200);
  assert.equal((await wrapped.send({ method: 'PATCH', url: 'http://w/connectors/c/config', headers: {} })).status, 200);
  assert.equal(http.seen.length, 2);
  // The kill itself, in a child process: it must send the PATCH and never get to the line after it.
  const module = fileURLToPath(new URL('./test-hooks.js', import.meta.url));
  const script = `
    const { killAfterSendFromEnv } = await import(${JSON.stringify(module)});
    const http = killAfterSendFromEnv({ send: async () => { process.stdout.write('sent\\n'); return { status: 200, headers: {}, body: Buffer.alloc(0), durationMs: 0 }; } });
    await http.send({ method: 'PATCH', url: 'http://w/connectors/c/offsets', headers: {} });
    process.stdout.write('answer read\\n');`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, OFFSETCTL_TEST_KILL_AFTER_SEND: 'PATCH' }, encoding: 'utf8' });
  assert.equal(child.signal, 'SIGKILL', child.stderr);
  assert.equal(child.stdout, 'sent\n');
});
