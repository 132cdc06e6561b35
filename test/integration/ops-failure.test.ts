// A failure after the stop puts the connector back: offsets from the snapshot, state as before.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { ConnectFixture, runCli, sortedOffsets, tempDir } from '../ops/support/cluster.js';

let cluster: ConnectFixture;
let source: { name: string; file: string };
let stateDir: string;

before(async () => {
  cluster = new ConnectFixture();
  source = await cluster.createSource(5);
  stateDir = tempDir('offsetctl-state-');
});
after(async () => cluster?.cleanup());

test('when Connect rejects the new offsets, the run exits 1, says the connector is RUNNING, and nothing changed', async () => {
  const before = await cluster.offsets(source.name);
  // Passes the generic source shape check; FileStreamSource itself refuses a negative position.
  const target = { offsets: [{ partition: { filename: source.file }, offset: { position: -1 } }] };
  const r = await runCli(['rewind', source.name, '--offsets', '-', '--yes', '--url', cluster.url, '--state-dir', stateDir], { input: JSON.stringify(target) });
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /failed at step rewindOffsets/);
  assert.match(r.stderr, /now RUNNING/);
  await cluster.waitRunning(source.name);
  assert.deepEqual(sortedOffsets(await cluster.offsets(source.name)), sortedOffsets(before));
  const runs = JSON.parse((await runCli(['runs', '--output', 'json', '--state-dir', stateDir])).stdout) as Array<{ status: string; connectorState: string }>;
  assert.equal(runs[0]?.status, 'failed');
  assert.equal(runs[0]?.connectorState, 'RUNNING');
});
