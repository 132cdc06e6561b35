// Issue 14, point 3 on the sandbox: the read-back right after a successful PATCH can be stale.
// A 2,000-partition source rewind read back hundreds of entries missing (3 of 3 times from a
// shell before the fix), failed, and recovery undid the good write. Now the read-back is retried
// for a bounded time; the rewinds and the rollback all succeed.
// Real parts: the sandbox's Kafka broker and Connect cluster, a SQLite store file, the CLI in-process.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { runInProcess } from '../support/in-process.js';
import { sandboxRest, startPipeline, tempDir, type ConnectRest, type FilePipeline } from '../support/connect.js';
import { waitForSourceCaughtUp } from '../../src/sandbox/index.js';
import { offsetsFile, sorted } from './defects-support.js';

let rest: ConnectRest;
let other: ConnectRest;
let pipeline: FilePipeline;

before(async () => {
  rest = await sandboxRest(0);
  other = await sandboxRest(1);
  pipeline = await startPipeline(rest, 'defects-verify', ['a', 'b'], { withSink: false });
  await waitForSourceCaughtUp(rest, pipeline);
});
after(async () => pipeline?.remove().catch(() => undefined));

test('3: 2,000-partition source rewinds through each worker verify despite stale first read-backs, and so does the rollback', async () => {
  const stateDir = tempDir('defects-state');
  const before = await rest.offsets(pipeline.source);
  const dir = tempDir('defects-many');
  // Which worker answers a stale read depends on where the connector runs and who leads: write
  // through both, with other positions each time, so the test does not depend on the assignment.
  for (const [round, worker] of [other, rest, other, rest, other, rest].entries()) {
    const target = Array.from({ length: 2000 }, (_v, i) => ({ partition: { filename: join(dir, `f${i}.txt`) }, offset: { position: i + 1 + round * 10 } }));
    const r = await runInProcess(['rewind', pipeline.source, '--offsets', offsetsFile(target), '--yes', '--url', worker.baseUrl, '--state-dir', stateDir]);
    assert.equal(r.status, 0, `round ${round}: ${r.stderr.slice(-3000)}`);
    assert.match(r.stdout, /the connector is RUNNING/);
    const now = new Map((await rest.offsets(pipeline.source)).offsets.map((o) => [String(o.partition['filename']), o.offset]));
    for (const t of target) assert.deepEqual(now.get(String(t.partition.filename)), t.offset);
  }
  // Back to before the first rewind: the oldest snapshot of this state folder.
  const snapshots = JSON.parse((await runInProcess(['snapshots', pipeline.source, '--output', 'json', '--state-dir', stateDir])).stdout) as Array<{ id: string }>;
  const back = await runInProcess(['rollback', pipeline.source, '--snapshot', snapshots.at(-1)!.id, '--yes', '--url', other.baseUrl, '--state-dir', stateDir]);
  assert.equal(back.status, 0, back.stderr.slice(-3000));
  await rest.waitForRunning(pipeline.source);
  assert.deepEqual(sorted((await rest.offsets(pipeline.source)).offsets), sorted(before.offsets));
});
