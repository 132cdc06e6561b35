// reset deletes every offset (snapshot first); rollback after a reset restores them.
// Real parts: the sandbox's Kafka broker and Connect cluster, a SQLite store file, the CLI in-process.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { type ConnectFixture, sortedOffsets, stillSet, tempDir, connectFixture } from '../support/connect.js';
import { runInProcess } from '../support/in-process.js';

let cluster: ConnectFixture;
let source: { name: string; file: string };
let stateDir: string;

before(async () => {
  cluster = await connectFixture();
  source = await cluster.createSource(4);
  stateDir = tempDir('offsetctl-state-');
});
after(async () => cluster?.cleanup());

test('reset empties the offsets and rollback brings them and the RUNNING state back', async () => {
  const before = await cluster.offsets(source.name);
  const reset = await runInProcess(['reset', source.name, '--yes', '--leave-stopped', '--output', 'json', '--url', cluster.url, '--state-dir', stateDir]);
  assert.equal(reset.status, 0, reset.stderr);
  const outcome = JSON.parse(reset.stdout) as { status: string; connectorState: string; snapshotId: string; outputs: { offsetsAfterReset: unknown[] } };
  assert.equal(outcome.status, 'succeeded');
  assert.equal(outcome.connectorState, 'STOPPED');
  assert.deepEqual(stillSet(outcome.outputs.offsetsAfterReset as Array<{ offset?: unknown }>), []);
  assert.deepEqual(stillSet((await cluster.offsets(source.name)).offsets), []);

  const rollback = await runInProcess(['rollback', source.name, '--snapshot', outcome.snapshotId, '--yes', '--url', cluster.url, '--state-dir', stateDir]);
  assert.equal(rollback.status, 0, rollback.stderr);
  await cluster.waitRunning(source.name);
  assert.deepEqual(sortedOffsets(await cluster.offsets(source.name)), sortedOffsets(before));
});
