// The Kafka release of the running sandbox, as a worker reports it (GET /), and the behaviour that
// differs by release (docs/reliability.md, "Kafka versions"). `npm run test:versions` runs this
// file on every release of its matrix.
// Real parts: the sandbox's Kafka broker and Connect cluster, a SQLite store file, the CLI in-process.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { runInProcess } from '../support/in-process.js';
import { type ConnectFixture, connectFixture, tempDir } from '../support/connect.js';

let cluster: ConnectFixture;
let sandboxVersion: string;

before(async () => {
  cluster = await connectFixture();
  const status = JSON.parse((await runInProcess(['sandbox', 'status', '--output', 'json'])).stdout) as { kafkaVersion?: string };
  sandboxVersion = status.kafkaVersion ?? '';
});
after(async () => cluster?.cleanup());

function atLeast(version: string, floor: string): boolean {
  const a = version.split('.').map(Number);
  const b = floor.split('.').map(Number);
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  return true;
}

test('the worker reports the release the sandbox was started with', async () => {
  const root = await cluster.request('GET', '/');
  assert.equal(root.status, 200);
  assert.equal((root.body as { version?: string }).version, sandboxVersion, 'sandbox status and GET / agree on the version');
  assert.ok(atLeast(sandboxVersion, '3.6.0'));
});

test('GET /health exists from 3.9 (KIP-1017); before it the sandbox waits on GET /connectors instead', async () => {
  const health = await cluster.request('GET', '/health');
  assert.equal(health.status, atLeast(sandboxVersion, '3.9.0') ? 200 : 404);
});

test('a dry-run rewind passes the worker version check and reads offsets on this release', async () => {
  const source = await cluster.createSource(3);
  const state = tempDir('offsetctl-version-');
  const target = { offsets: [{ partition: { filename: source.file }, offset: { position: 0 } }] };
  const dry = await runInProcess(['rewind', source.name, '--offsets', '-', '--dry-run', '--url', cluster.url, '--state-dir', state, '--output', 'json'], { stdin: JSON.stringify(target) });
  assert.equal(dry.status, 0, dry.stderr);
  const outcome = JSON.parse(dry.stdout) as { status: string; diff: { changed: number } };
  assert.equal(outcome.status, 'dry-run');
  assert.equal(outcome.diff.changed, 1);
});
