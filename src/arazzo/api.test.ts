// The package's four verbs over real documents (the package's example, a 1.1 fixture), with a
// recording HttpSender in place of a server: what the verbs add to the runner is reading,
// refusing and defaulting, not sending.
// Real parts: none (the code under test, in this process).
import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { lint, plan, run, validate } from './api.js';
import { ArazzoError } from './errors.js';
import type { HttpRequest, HttpSender } from './http.js';
import type { RunEvent } from './runner/index.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const example = join(repoRoot, 'packages/arazzo/examples/hello.arazzo.yaml');

function recorder(): HttpSender & { sent: HttpRequest[] } {
  const sent: HttpRequest[] = [];
  return {
    sent,
    async send(req) {
      sent.push(req);
      return { status: 200, headers: { 'content-type': 'application/json' }, body: new TextEncoder().encode('{"text":"hi"}'), durationMs: 1 };
    },
  };
}

test('validate reports a wrong operationId as a diagnostic, with its line, instead of throwing', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'arazzo-api-'));
  try {
    writeFileSync(join(dir, 'hello.openapi.yaml'), readFileSync(join(dirname(example), 'hello.openapi.yaml')));
    writeFileSync(join(dir, 'bad.arazzo.yaml'), readFileSync(example, 'utf8').replace('operationId: getGreeting', 'operationId: getGreting'));
    assert.deepEqual(await validate(example), { valid: true, diagnostics: [] });
    const bad = await validate(join(dir, 'bad.arazzo.yaml'));
    assert.equal(bad.valid, false);
    assert.ok(bad.diagnostics.some((d) => d.severity === 'error' && /getGreting/.test(d.message) && d.line !== undefined), JSON.stringify(bad.diagnostics));
    await assert.rejects(lint(join(dir, 'bad.arazzo.yaml')), (err: unknown) => err instanceof ArazzoError && err.code === 'E_DOCUMENT_INVALID');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('lint, plan and run: findings, the request a run would send, and the run with its events', async () => {
  assert.ok(Array.isArray(await lint(example)));
  const planned = await plan(example, { inputs: { name: 'ada' }, servers: { all: 'http://127.0.0.1:9' } });
  assert.equal(planned.steps[0]?.request?.url, 'http://127.0.0.1:9/greetings/ada');
  const http = recorder();
  const events: RunEvent['type'][] = [];
  const result = await run(example, { inputs: { name: 'ada' }, servers: { all: 'http://127.0.0.1:9' }, http, onEvent: (e) => void events.push(e.type) });
  assert.equal(result.status, 'passed');
  assert.deepEqual(result.outputs, { text: 'hi' });
  assert.deepEqual(http.sent.map((r) => r.url), ['http://127.0.0.1:9/greetings/ada']);
  assert.equal(events[0], 'workflow.started');
  assert.equal(events.at(-1), 'workflow.finished');
});

test('run refuses a document with AsyncAPI sources when no message transport is given, before sending anything', async () => {
  const http = recorder();
  await assert.rejects(
    run(join(repoRoot, 'test/fixtures/arazzo/send-to-new-topic.arazzo.yaml'), { inputs: { run: 'r1' }, http }),
    (err: unknown) => err instanceof ArazzoError && err.code === 'E_SOURCE' && /no message transport was given; pass `messages`/.test(err.message),
  );
  assert.equal(http.sent.length, 0);
});
