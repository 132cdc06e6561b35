// The injected IO's factories (issue 31, src/cli/io.ts): a real command run in-process with an HTTP
// sender, a store, a prompter and a working folder the test hands in, and what it did with each.
// Real parts: the CLI in-process, a SQLite store file, the standard HTTP sender to a loopback server
// standing in for one Kafka Connect worker (it knows one connector's status, nothing else).
import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, test } from 'node:test';
import { standardSender } from '../../src/cli/connection.js';
import { askSecret, canAsk } from '../../src/cli/ask-secret.js';
import { type CliIO, withIO } from '../../src/cli/io.js';
import { redactText } from '../../src/http/redact.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/index.js';
import { runInProcess, scriptedPrompter } from '../support/in-process.js';

let worker: Server;
let url: string;
/** What reached the loopback worker, as METHOD path. */
const arrived: string[] = [];

before(async () => {
  worker = createServer((req, res) => {
    arrived.push(`${req.method} ${req.url}`);
    req.resume();
    const on = '127.0.0.1:8083';
    const answers: Record<string, unknown> = {
      '/connectors': ['orders'],
      '/connectors/orders': { name: 'orders', config: { 'connector.class': 'FileStreamSource', name: 'orders' }, tasks: [{ connector: 'orders', task: 0 }], type: 'source' },
      '/connectors/orders/status': { name: 'orders', connector: { state: 'RUNNING', worker_id: on }, tasks: [{ id: 0, state: 'RUNNING', worker_id: on }], type: 'source' },
    };
    const path = (req.url ?? '').split('?')[0]!;
    res.writeHead(path in answers ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answers[path] ?? { error_code: 404, message: `${path} not found` }));
  });
  await new Promise<void>((resolve) => worker.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(worker.address() as AddressInfo).port}`;
});

after(() => new Promise<void>((resolve) => worker.close(() => resolve())));

function baseIO(): CliIO {
  return { stdout: new PassThrough(), stderr: new PassThrough(), stdin: new PassThrough(), env: {}, now: () => Date.now(), cwd: () => tmpdir(), exitCode: undefined, noColor: false };
}

/** A home of its own: the state folder the command would open without the handed-in store is empty. */
function isolated(): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = mkdtempSync(join(tmpdir(), 'offsetctl-io-factory-'));
  return { dir, env: { OFFSETCTL_STORE: undefined, OFFSETCTL_URL: undefined, HOME: dir, OFFSETCTL_CONFIG: join(dir, 'config.yaml'), OFFSETCTL_STATE_DIR: join(dir, 'state') } };
}

/** The standard sender, wrapped to record each request the command sends through it. */
function recordingSender(sent: string[]): NonNullable<CliIO['httpSender']> {
  return async (options) => {
    const inner = await standardSender(options);
    const send: typeof inner.send = (req) => {
      sent.push(`${req.method} ${new URL(req.url).pathname}`);
      return inner.send(req);
    };
    return { send, close: () => inner.close() };
  };
}

/** A store elsewhere than the state folder, holding one interrupted run (its holder counts as gone). */
async function storeWithInterruptedRun(): Promise<{ dir: string; runId: string; open: () => SqliteStore }> {
  const dir = mkdtempSync(join(tmpdir(), 'offsetctl-io-factory-store-'));
  const open = (): SqliteStore => openSqliteStore(dir, { isAlive: () => false });
  const store = open();
  const run = await store.beginRun({ clusterUrl: url, connector: 'orders', operation: 'rewind', workflowFile: 'w', workflowId: 'w', inputs: {} });
  await store.close();
  return { dir, runId: run.id, open };
}

test('runs abandon answered "n" by a scripted prompter: exit 2, the handed-in store\'s run unchanged, the handed-in sender used', async () => {
  const { env } = isolated();
  const { runId, open } = await storeWithInterruptedRun();
  const sent: string[] = [];
  const prompter = scriptedPrompter(['n']);
  const r = await runInProcess(['runs', 'abandon', runId, '--reason', 'testing the IO'], {
    env, prompter, httpSender: recordingSender(sent), openStore: async () => open(),
  });
  assert.equal(r.status, 2, r.stderr);
  // The command found the run in the store it was handed (the state folder has none)...
  assert.match(r.stdout, new RegExp(`Run ${runId}: rewind of orders on ${url}, interrupted`));
  // ...read the connector's state through the handed-in sender, from the loopback worker...
  assert.match(r.stdout, /orders is RUNNING now/);
  assert.ok(sent.includes('GET /connectors/orders/status'), `sent: ${sent.join(', ')}`);
  assert.ok(arrived.includes('GET /connectors/orders/status'));
  // ...asked the prompter (not refused for want of a terminal), took "n" as no, and changed nothing.
  assert.deepEqual(prompter.questions, [`Abandon run ${runId}? [y/N] `]);
  assert.match(r.stderr, /not confirmed: the operator did not answer yes; nothing was changed/);
  const store = open();
  try {
    assert.equal((await store.getRun(runId)).status, 'running');
  } finally {
    await store.close();
  }
});

test('runs abandon answered "y": the change is written to the handed-in store, which the test reads back', async () => {
  const { env } = isolated();
  const { runId, open } = await storeWithInterruptedRun();
  const r = await runInProcess(['runs', 'abandon', runId, '--reason', 'testing the IO'], {
    env, prompter: scriptedPrompter(['y']), httpSender: recordingSender([]), openStore: async () => open(),
  });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`Run ${runId} abandoned by .*: testing the IO\\. The lock on orders is free\\.`));
  const store = open();
  try {
    const run = await store.getRun(runId);
    assert.equal(run.status, 'abandoned');
  } finally {
    await store.close();
  }
  // The state folder's own store was never opened.
  assert.equal(existsSync(join(env.OFFSETCTL_STATE_DIR!, 'offsetctl.db')), false);
});

/** The store, except that `failing` throws the first time it is called, after the steps before it were done. */
function failingAt(store: SqliteStore, failing: string, closed: string[]): SqliteStore {
  let failed = false;
  return new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (name === 'close') closed.push('close');
        if (name === failing && !failed) {
          failed = true;
          return Promise.reject(new Error(`store unavailable in ${failing} (test)`));
        }
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

test('a store that fails at a chosen step (finishRun): the command fails, says why, claims nothing done, and closes the store', async () => {
  const { env } = isolated();
  const { runId, open } = await storeWithInterruptedRun();
  const closed: string[] = [];
  const r = await runInProcess(['runs', 'abandon', runId, '--reason', 'testing the IO', '--yes'], {
    env, httpSender: recordingSender([]), openStore: async () => failingAt(open(), 'finishRun', closed),
  });
  assert.notEqual(r.status, 0);
  assert.notEqual(r.status, 2, 'exit 2 never follows a change (the run was taken over before finishRun failed)');
  assert.match(r.stderr, /store unavailable in finishRun \(test\)/);
  assert.doesNotMatch(r.stdout, /abandoned by/);
  assert.deepEqual(closed, ['close']);
  const store = open();
  try {
    assert.equal((await store.getRun(runId)).status, 'running', 'the run is not recorded as abandoned');
  } finally {
    await store.close();
  }
});

test('without a prompter handed in, the default is unchanged: no terminal, so the confirmation is refused', async () => {
  const { env } = isolated();
  const { runId, open } = await storeWithInterruptedRun();
  const refused = await runInProcess(['runs', 'abandon', runId, '--reason', 'x', '--url', url], { env, openStore: async () => open() });
  assert.equal(refused.status, 2);
  assert.match(refused.stderr, /not confirmed: no terminal to ask on; pass --yes/);
});

test('a secret is asked of the IO\'s prompter (no terminal needed) and masked from then on', async () => {
  const io: CliIO = { ...baseIO(), prompter: scriptedPrompter(['s3cret-from-prompter']) };
  await withIO(io, async () => {
    assert.equal(canAsk(), true);
    assert.equal(await askSecret('password: '), 's3cret-from-prompter');
    assert.equal(redactText('the password is s3cret-from-prompter'), 'the password is ***');
  });
  // Without one, a stream that is not a terminal cannot be asked.
  await withIO(baseIO(), async () => assert.equal(canAsk(), false));
});

test('a relative --offsets file is read from the IO\'s working folder, not from the process\'s', async () => {
  const { dir, env } = isolated();
  writeFileSync(join(dir, 'offsets-in-io-cwd.json'), '{"offsets": []}\n');
  const sent: string[] = [];
  const args = ['rewind', 'orders', '--offsets', 'offsets-in-io-cwd.json', '--url', url, '--dry-run'];
  const there = await runInProcess(args, { env, cwd: dir, httpSender: recordingSender(sent) });
  // Read: the command went on to ask the worker about the connector .
  assert.doesNotMatch(there.stderr, /cannot read the offsets file/);
  assert.ok(sent.includes('GET /connectors/orders'), `sent: ${sent.join(', ')}; stderr: ${there.stderr}`);
  // The same words from the repository root (the process's working folder) find no such file.
  const here = await runInProcess(args, { env });
  assert.equal(here.status, 2);
  assert.match(here.stderr, /offsets-in-io-cwd\.json: cannot read the offsets file \(no such file\)/);
});

test('relative paths of config set-context (OFFSETCTL_CONFIG, --token-file) are the IO\'s working folder\'s', async () => {
  const { dir } = isolated();
  const r = await runInProcess(['config', 'set-context', 'here', '--url', url, '--token-file', 'token.txt'], { env: { OFFSETCTL_CONFIG: 'offsetctl.yaml' }, cwd: dir });
  assert.equal(r.status, 0, r.stderr);
  assert.ok(existsSync(join(dir, 'offsetctl.yaml')), 'the config file is written in the IO\'s working folder');
  assert.match(readFileSync(join(dir, 'offsetctl.yaml'), 'utf8'), new RegExp(`token-file: ${join(dir, 'token.txt')}`));
});

test('workflow documents, --source and --output-file are the IO\'s working folder\'s', async () => {
  const { dir } = isolated();
  writeFileSync(join(dir, 'doc.yaml'), [
    'arazzo: 1.0.1', 'info: { title: t, version: 1.0.0 }', 'sourceDescriptions: [{ name: api, url: ./api.yaml, type: openapi }]',
    'workflows: [{ workflowId: w, steps: [{ stepId: s, operationId: getThing }] }]', '',
  ].join('\n'));
  const upgraded = await runInProcess(['workflow', 'upgrade', 'doc.yaml', '--output-file', 'up.yaml'], { cwd: dir });
  assert.equal(upgraded.status, 0, upgraded.stderr);
  assert.match(readFileSync(join(dir, 'up.yaml'), 'utf8'), /^arazzo: 1\.1\.0$/m);
  // A relative --source is looked for in the working folder (here it is not there: the error names where it looked).
  const validated = await runInProcess(['workflow', 'validate', 'doc.yaml', '--source', 'api=specs/api.yaml'], { cwd: dir });
  assert.equal(validated.status, 2);
  assert.match(validated.stderr, new RegExp(`cannot read ${join(dir, 'specs', 'api.yaml')} \\(no such file\\)`));
});
