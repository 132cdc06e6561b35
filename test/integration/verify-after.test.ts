// Verify by data after a change (issue 34): `--verify <duration>` watches the connector once it
// runs again. A sink rewound to the start re-consumes and commits past what the rewind wrote:
// passed. A FileStream source rewound while its file is gone runs but never moves: failed (exit 1),
// and with --rollback-on-failure the run's snapshot is put back (an audited rollback). The flags are
// refused (exit 2, nothing changed) where they cannot apply. With a Kafka bootstrap the records are
// read too: the first record a rewound sink consumed, the first new record of a re-reading source on
// the topic Connect reports for it, and a sink resumed with nothing to consume said to be idle.
// Real Connect workers and broker, no fakes.
// Real parts: the sandbox's Kafka broker and Connect cluster, the CLI in-process.
import * as assert from 'node:assert/strict';
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runInProcess } from '../support/in-process.js';
import { type ConnectFixture, connectFixture, tempDir, waitFor } from '../support/connect.js';
import { sandboxBootstrap } from '../support/positions-kafka.js';

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
    const r = await runInProcess(['--url', cluster.url, 'rewind', sink.name, '--offsets', file, '--yes', '--verify', '45s']);
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
    const r = await runInProcess(['--url', cluster.url, 'rewind', src.name, '--offsets', file, '--yes', '--verify', '8s', '--rollback-on-failure']);
    assert.equal(r.status, 1, `${r.stdout}\n${r.stderr}`);
    assert.match(r.stdout, /rewind of .* done; the connector is RUNNING/);
    assert.match(r.stderr, /verify: failed — nothing moved in 8 s: .* is RUNNING \(tasks 0:RUNNING\) and its offsets are still what the change wrote/);
    assert.match(r.stderr, /Rolled back to snapshot \S+: rollback of .* done; the connector is RUNNING/);
    const now = (await cluster.offsets(src.name)).offsets[0]!.offset as { position: number };
    assert.equal(Number(now.position), position, 'the offsets of before the rewind are back');
    const runs = await runInProcess(['--url', cluster.url, 'runs', '--connector', src.name, '-o', 'json']);
    const list = JSON.parse(runs.stdout) as Array<{ operation: string; status: string }>;
    assert.deepEqual(list.map((x) => `${x.operation}:${x.status}`), ['rollback:succeeded', 'rewind:succeeded']);
  });

  it('without --rollback-on-failure a failed verify leaves the change and says how to undo it', { timeout: 240_000 }, async () => {
    const src = await cluster.createSource(3);
    renameSync(src.file, `${src.file}.gone`);
    const file = offsetsFile([{ partition: { filename: src.file }, offset: { position: 0 } }]);
    const r = await runInProcess(['--url', cluster.url, 'rewind', src.name, '--offsets', file, '--yes', '--verify', '5s']);
    assert.equal(r.status, 1, `${r.stdout}\n${r.stderr}`);
    assert.match(r.stderr, /verify: failed — nothing moved in 5 s.*The rewind stays as it is\. Undo it with `offsetctl rollback .* --snapshot \S+`/);
    const now = (await cluster.offsets(src.name)).offsets[0]!.offset as { position: number };
    assert.equal(Number(now.position), 0);
  });

  it('the flags are refused where they cannot apply (exit 2, nothing changed)', { timeout: 60_000 }, async () => {
    const alone = await runInProcess(['--url', cluster.url, 'reset', 'whatever', '--yes', '--rollback-on-failure']);
    assert.equal(alone.status, 2);
    assert.match(alone.stderr, /--rollback-on-failure needs --verify <duration>/);
    const stopped = await runInProcess(['--url', cluster.url, 'reset', 'whatever', '--yes', '--verify', '10s', '--leave-stopped']);
    assert.equal(stopped.status, 2);
    assert.match(stopped.stderr, /cannot go with --leave-stopped/);
    const batch = await runInProcess(['--url', cluster.url, 'reset', '--all', '--yes', '--verify', '10s']);
    assert.equal(batch.status, 2);
    assert.match(batch.stderr, /--verify is for one connector at a time/);
    const bad = await runInProcess(['--url', cluster.url, 'reset', 'whatever', '--yes', '--verify', 'soon']);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--verify "soon": expected a duration from 1s to 1h/);
  });
});

describe('--verify reads the records (with a Kafka bootstrap)', () => {
  let env: Record<string, string>;
  before(async () => {
    cluster = await connectFixture();
    env = { OFFSETCTL_BOOTSTRAP: await sandboxBootstrap() };
  });
  after(async () => {
    await cluster.cleanup();
  });

  it('a sink rewound to offset 0: the first record it consumed is reported (topic, partition, offset 0, record time)', { timeout: 240_000 }, async () => {
    const src = await cluster.createSource(5);
    const sink = await cluster.createSink(src.topic);
    await waitFor('the sink committed 5', async () => {
      const o = await cluster.offsets(sink.name);
      return o.offsets.some((e) => Number((e.offset as { kafka_offset?: number } | null)?.kafka_offset) === 5);
    });
    const file = offsetsFile([{ partition: { kafka_topic: src.topic, kafka_partition: 0 }, offset: { kafka_offset: 0 } }]);
    const r = await runInProcess(['--url', cluster.url, 'rewind', sink.name, '--offsets', file, '--yes', '--verify', '45s'], { env });
    assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
    const m = new RegExp(`first record consumed: ${src.topic} partition 0 offset 0 \\(record time (\\S+)\\)$`, 'm').exec(r.stdout);
    assert.ok(m, r.stdout);
    assert.ok(Math.abs(Date.parse(m[1]!) - Date.now()) < 600_000, `record time ${m[1]}`);
    assert.match(r.stdout, /verify: passed — /);

    // Resumed with nothing to consume (its position is the log end): idle, said with the figures; exit 1 (nothing proven).
    assert.equal((await runInProcess(['--url', cluster.url, 'stop', sink.name])).status, 0);
    const idle = await runInProcess(['--url', cluster.url, 'resume', sink.name, '--verify', '6s'], { env });
    assert.equal(idle.status, 1, `${idle.stdout}\n${idle.stderr}`);
    assert.match(idle.stderr, new RegExp(`nothing moved in 6 s: .*; no new records on its topics since the`
      + String.raw` position it was left at: a sink with nothing to consume \(idle\)`));
    assert.match(idle.stdout, new RegExp(`${src.topic}/0: left at 5, log end 5`));
  });

  it('a FileStream source rewound to position 0 re-reads its file: the first new record on the topic Connect reports', { timeout: 240_000 }, async () => {
    const src = await cluster.createSource(5);
    await waitFor('the source wrote its 5 lines', async () => {
      const o = await cluster.offsets(src.name);
      return Number((o.offsets[0]?.offset as { position?: number } | undefined)?.position ?? 0) > 0;
    });
    const file = offsetsFile([{ partition: { filename: src.file }, offset: { position: 0 } }]);
    const r = await runInProcess(['--url', cluster.url, 'rewind', src.name, '--offsets', file, '--yes', '--verify', '45s'], { env });
    assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
    assert.match(r.stdout, new RegExp(`new records: watching ${src.topic} from their end offsets`));
    // The 5 lines were on the topic already (offsets 0-4), marked before the rewind: the re-read ones come after them.
    assert.match(r.stdout, new RegExp(`first new record: ${src.topic} partition 0 offset ([5-9]|\\d{2,}) \\(record time \\S+\\), `
      + 'read [\\d.]+ s after its topics\' ends were marked'));
    assert.match(r.stdout, /verify: passed — .*moved within [\d.]+ s, 1 topic\(s\) with new records/);
  });

  it('a sink whose consumer holds every fetch (fetch.min.bytes 50 MB, 2 min wait) runs but consumes nothing while 5 records wait: '
    + 'not idle, so --rollback-on-failure puts the snapshot back', { timeout: 240_000 }, async () => {
    const src = await cluster.createSource(5);
    const sink = await cluster.createSink(src.topic);
    await waitFor('the sink committed 5', async () => {
      const o = await cluster.offsets(sink.name);
      return o.offsets.some((e) => Number((e.offset as { kafka_offset?: number } | null)?.kafka_offset) === 5);
    });
    const config = (await cluster.request('GET', `/connectors/${sink.name}/config`)).body as Record<string, string>;
    const held = {
      ...config,
      'consumer.override.fetch.min.bytes': '52428800', 'consumer.override.fetch.max.wait.ms': '120000', 'consumer.override.request.timeout.ms': '180000',
    };
    assert.equal((await cluster.request('PUT', `/connectors/${sink.name}/config`, held)).status, 200);
    await cluster.waitRunning(sink.name);
    const file = offsetsFile([{ partition: { kafka_topic: src.topic, kafka_partition: 0 }, offset: { kafka_offset: 0 } }]);
    const r = await runInProcess(['--url', cluster.url, 'rewind', sink.name, '--offsets', file, '--yes', '--verify', '8s', '--rollback-on-failure'], { env });
    assert.equal(r.status, 1, `${r.stdout}\n${r.stderr}`);
    assert.match(r.stderr, new RegExp(String.raw`verify: failed — nothing moved in 8 s: .*; 5 record\(s\) wait on its topics past the position`
      + String.raw` it was left at, but nothing was consumed\. Rolled back to snapshot \S+: rollback of .* done`));
    assert.match(r.stdout, new RegExp(`${src.topic}/0: left at 0, log end 5`));
    const now = await cluster.offsets(sink.name);
    assert.equal(Number((now.offsets[0]?.offset as { kafka_offset?: number } | null)?.kafka_offset), 5, 'the offsets of before the rewind are back');
  });
});
