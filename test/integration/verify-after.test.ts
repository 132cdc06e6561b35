// Verify by data after a change (issue 34): `--verify <duration>` watches the connector once it
// runs again. A sink rewound to the start re-consumes and commits past what the rewind wrote:
// passed. A FileStream source rewound while its file is gone runs but never moves: failed (exit 1),
// and with --rollback-on-failure the run's snapshot is put back (an audited rollback). The flags are
// refused (exit 2, nothing changed) where they cannot apply. Real Connect workers, no fakes.
import * as assert from 'node:assert/strict';
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../support/cli.js';
import { type ConnectFixture, connectFixture, tempDir, waitFor } from '../support/connect.js';

let cluster: ConnectFixture;

function offsetsFile(offsets: unknown[]): string {
  const file = join(tempDir('verify-offsets'), 'offsets.json');
  writeFileSync(file, JSON.stringify({ offsets }));
  return file;
}

describe('--verify after a change', () => {
  before(async () => {
    cluster = await connectFixture();
  });
  after(async () => {
    await cluster.cleanup();
  });

  it('a sink rewound to offset 0 moves again (it re-consumes and commits): verify passes, exit 0', { timeout: 240_000 }, async () => {
    const src = await cluster.createSource(5);
    const sink = await cluster.createSink(src.topic);
    await waitFor('the sink committed 5', async () => {
      const o = await cluster.offsets(sink.name);
      return o.offsets.some((e) => Number((e.offset as { kafka_offset?: number } | null)?.kafka_offset) === 5);
    });
    const file = offsetsFile([{ partition: { kafka_topic: src.topic, kafka_partition: 0 }, offset: { kafka_offset: 0 } }]);
    const r = await runCli(['--url', cluster.url, 'rewind', sink.name, '--offsets', file, '--yes', '--verify', '45s']);
    assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
    assert.match(r.stdout, /verify: watching .* for up to 45 s/);
    assert.match(r.stdout, /verify: passed — .* moves: RUNNING \(tasks 0:RUNNING\), offsets of 1 partition\(s\) moved within/);
  });

  it('a source whose file is gone runs but never moves: verify fails (exit 1) and --rollback-on-failure puts the snapshot back',
    { timeout: 240_000 }, async () => {
    const src = await cluster.createSource(5);
    const position = Number(((await cluster.offsets(src.name)).offsets[0]!.offset as { position: number }).position);
    renameSync(src.file, `${src.file}.gone`);
    const file = offsetsFile([{ partition: { filename: src.file }, offset: { position: 0 } }]);
    const r = await runCli(['--url', cluster.url, 'rewind', src.name, '--offsets', file, '--yes', '--verify', '8s', '--rollback-on-failure']);
    assert.equal(r.status, 1, `${r.stdout}\n${r.stderr}`);
    assert.match(r.stdout, /rewind of .* done; the connector is RUNNING/);
    assert.match(r.stderr, /verify: failed — nothing moved in 8 s: .* is RUNNING \(tasks 0:RUNNING\) and its offsets are still what the change wrote/);
    assert.match(r.stderr, /Rolled back to snapshot \S+: rollback of .* done; the connector is RUNNING/);
    const now = (await cluster.offsets(src.name)).offsets[0]!.offset as { position: number };
    assert.equal(Number(now.position), position, 'the offsets of before the rewind are back');
    const runs = await runCli(['--url', cluster.url, 'runs', '--connector', src.name, '-o', 'json']);
    const list = JSON.parse(runs.stdout) as Array<{ operation: string; status: string }>;
    assert.deepEqual(list.map((x) => `${x.operation}:${x.status}`), ['rollback:succeeded', 'rewind:succeeded']);
  });

  it('without --rollback-on-failure a failed verify leaves the change and says how to undo it', { timeout: 240_000 }, async () => {
    const src = await cluster.createSource(3);
    renameSync(src.file, `${src.file}.gone`);
    const file = offsetsFile([{ partition: { filename: src.file }, offset: { position: 0 } }]);
    const r = await runCli(['--url', cluster.url, 'rewind', src.name, '--offsets', file, '--yes', '--verify', '5s']);
    assert.equal(r.status, 1, `${r.stdout}\n${r.stderr}`);
    assert.match(r.stderr, /verify: failed — nothing moved in 5 s.*The rewind stays as it is\. Undo it with `offsetctl rollback .* --snapshot \S+`/);
    const now = (await cluster.offsets(src.name)).offsets[0]!.offset as { position: number };
    assert.equal(Number(now.position), 0);
  });

  it('the flags are refused where they cannot apply (exit 2, nothing changed)', { timeout: 60_000 }, async () => {
    const alone = await runCli(['--url', cluster.url, 'reset', 'whatever', '--yes', '--rollback-on-failure']);
    assert.equal(alone.status, 2);
    assert.match(alone.stderr, /--rollback-on-failure needs --verify <duration>/);
    const stopped = await runCli(['--url', cluster.url, 'reset', 'whatever', '--yes', '--verify', '10s', '--leave-stopped']);
    assert.equal(stopped.status, 2);
    assert.match(stopped.stderr, /cannot go with --leave-stopped/);
    const batch = await runCli(['--url', cluster.url, 'reset', '--all', '--yes', '--verify', '10s']);
    assert.equal(batch.status, 2);
    assert.match(batch.stderr, /--verify is for one connector at a time/);
    const bad = await runCli(['--url', cluster.url, 'reset', 'whatever', '--yes', '--verify', 'soon']);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--verify "soon": expected a duration from 1s to 1h/);
  });
});
