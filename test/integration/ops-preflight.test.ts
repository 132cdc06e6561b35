// Refusals before any change: bad offsets, unknown connector, no confirmation, --dry-run.
// Real parts: the sandbox's Kafka broker and Connect cluster, a SQLite store file, the CLI in-process.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ConnectFixture, sortedOffsets, tempDir, connectFixture } from '../support/connect.js';
import { runInProcess } from '../support/in-process.js';

let cluster: ConnectFixture;
let source: { name: string; file: string };
let stateDir: string;

before(async () => {
  cluster = await connectFixture();
  source = await cluster.createSource(5);
  stateDir = tempDir('offsetctl-state-');
});
after(async () => cluster?.cleanup());

const common = () => ['--url', cluster.url, '--state-dir', stateDir];

async function runsRecorded(): Promise<unknown[]> {
  const r = await runInProcess(['runs', '--output', 'json', '--state-dir', stateDir]);
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as unknown[];
}

test('an invalid offsets file is refused with exit 2 naming the field; the connector stays RUNNING and untouched', async () => {
  const before = await cluster.offsets(source.name);
  const file = join(cluster.dir, 'bad.json');
  writeFileSync(file, JSON.stringify({ offsets: [{ partition: { filename: source.file }, offset: { position: { nested: 1 } } }] }));
  const r = await runInProcess(['rewind', source.name, '--offsets', file, '--yes', ...common()]);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /E_OFFSETS_INVALID/);
  assert.match(r.stderr, /offsets\[0\]\.offset\.position/);
  const status = await cluster.status(source.name);
  assert.equal(status.connector.state, 'RUNNING');
  assert.deepEqual(sortedOffsets(await cluster.offsets(source.name)), sortedOffsets(before));
  assert.deepEqual(await runsRecorded(), []);
});

test('a file that is not JSON and an unknown connector are refused with exit 2', async () => {
  const file = join(cluster.dir, 'not-json.json');
  writeFileSync(file, '{"offsets": [');
  const notJson = await runInProcess(['rewind', source.name, '--offsets', file, '--yes', ...common()]);
  assert.equal(notJson.status, 2, notJson.stderr);
  const missing = await runInProcess(['reset', `${source.name}-missing`, '--yes', ...common()]);
  assert.equal(missing.status, 2, missing.stderr);
  assert.match(missing.stderr, /E_CONNECTOR_NOT_FOUND/);
  assert.equal((await cluster.status(source.name)).connector.state, 'RUNNING');
});

test('--dry-run shows the diff and changes nothing; without --yes and without a terminal nothing changes either', async () => {
  const before = await cluster.offsets(source.name);
  const target = { offsets: [{ partition: { filename: source.file }, offset: { position: 0 } }] };
  const dry = await runInProcess(['rewind', source.name, '--offsets', '-', '--dry-run', ...common()], { stdin: JSON.stringify(target) });
  assert.equal(dry.status, 0, dry.stderr);
  assert.match(dry.stdout, /dry run: nothing was changed/);
  assert.match(dry.stdout, /→/);
  const unconfirmed = await runInProcess(['rewind', source.name, '--offsets', '-', ...common()], { stdin: JSON.stringify(target) });
  assert.equal(unconfirmed.status, 2, unconfirmed.stderr);
  assert.match(unconfirmed.stderr, /--yes/);
  const dryReset = await runInProcess(['reset', source.name, '--dry-run', '--output', 'json', ...common()]);
  assert.equal(dryReset.status, 0, dryReset.stderr);
  assert.equal((JSON.parse(dryReset.stdout) as { status: string }).status, 'dry-run');
  assert.equal((await cluster.status(source.name)).connector.state, 'RUNNING');
  assert.deepEqual(sortedOffsets(await cluster.offsets(source.name)), sortedOffsets(before));
  assert.deepEqual(await runsRecorded(), []);
});
