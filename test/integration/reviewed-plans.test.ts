// Saved plans on the sandbox: `--plan-out` runs the pre-flight and writes the plan, changing
// nothing; `offsetctl apply <file>` checks it against the cluster again and applies exactly it.
// A sink rewound from a saved plan re-delivers the planned records even though it consumed more
// meanwhile; a hand-edited plan, a plan for a connector deleted and created again with other
// topics, a plan too old, and one whose offsets went back are refused (exit 2, nothing changed);
// a batch plan is applied as one batch.
// Real parts: the sandbox's Kafka broker and Connect cluster, a SQLite store file, spawns the CLI.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../support/cli.js';
import { connectFixture, sortedOffsets, stillSet, tempDir, uniqueName, waitFor, type ConnectFixture } from '../support/connect.js';
import { MINUTE, appendRecords, createTimedTopic, deleteTopics, sandboxBootstrap } from '../support/positions-kafka.js';
import { HttpClient } from '../../src/http/client.js';
import { openStore } from '../../src/store/index.js';
import { planRewind, savePlan } from '../../src/ops/index.js';

let cluster: ConnectFixture;
let bootstrap: string;
let stateDir: string;
let env: Record<string, string>;
const topics: string[] = [];
const created: string[] = [];

const cli = (args: string[], options: { stdin?: string } = {}) =>
  runCli([...args, '--url', cluster.url, '--state-dir', stateDir], { env, ...options });

const fileLines = (file: string): string[] => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);

async function committed(sink: string): Promise<number> {
  const o = await cluster.offsets(sink);
  return Number(o.offsets.find((e) => e.partition.kafka_partition === 0)?.offset?.kafka_offset ?? -1);
}

async function timedSink(count: number): Promise<{ topic: string; sink: string; out: string }> {
  const topic = uniqueName('reviewed-topic');
  topics.push(topic);
  const sink = `${topic}-sink`;
  await createTimedTopic(bootstrap, topic, { partitions: 1, count, baseMs: Date.now() - count * MINUTE });
  await cluster.createSink(topic, { name: sink, strings: true });
  created.push(sink);
  const out = join(cluster.dir, `${sink}.out`);
  await waitFor(`${sink} to write ${count} records`, async () => fileLines(out).length === count, 180_000);
  await waitFor(`${sink} to commit ${count}`, async () => (await committed(sink)) === count);
  return { topic, sink, out };
}

before(async () => {
  cluster = await connectFixture();
  bootstrap = await sandboxBootstrap();
  stateDir = tempDir('offsetctl-reviewed-');
  env = { OFFSETCTL_CONFIG: join(stateDir, 'config.yaml') };
});

after(async () => {
  for (const name of created) await cluster?.request('DELETE', `/connectors/${name}`);
  await cluster?.cleanup();
  if (bootstrap && topics.length > 0) await deleteTopics(bootstrap, topics);
});

test('a plan written now and applied later replays the planned records, though the sink consumed more meanwhile; applying it twice is refused', async () => {
  const { topic, sink, out } = await timedSink(20);
  const plan = join(stateDir, 'rewind.plan.json');
  const planned = await cli(['rewind', sink, '--bootstrap', bootstrap, '--to-offset', '5', '--partition', `${topic}:0`, '--plan-out', plan]);
  assert.equal(planned.status, 0, planned.stderr);
  assert.match(planned.stdout, /plan saved to .*rewind\.plan\.json .*nothing was changed/);
  // Planning changed nothing: no run, the offset where it was, the sink still RUNNING.
  assert.equal(await committed(sink), 20);
  assert.equal((await cluster.status(sink)).connector.state, 'RUNNING');
  const runs = await cli(['runs', '-o', 'json']);
  assert.deepEqual(JSON.parse(runs.stdout), []);
  const doc = JSON.parse(readFileSync(plan, 'utf8')) as { format: string; digest: string; plannedBy: { user: string; osUser: string }; clusterKey: string; plans: Array<{ identity: { connectorClass: string; topics: Record<string, string>; kafkaClusterId: string }; currentOffsets: unknown[]; targetOffsets: Array<{ offset: { kafka_offset: number } }>; warnings: string[] }> };
  assert.equal(doc.format, 'offsetctl-plan/1');
  assert.match(doc.digest, /^sha256:[0-9a-f]{64}$/);
  assert.match(doc.plannedBy.user, /@/);
  assert.equal(doc.plans[0]?.identity.connectorClass, 'org.apache.kafka.connect.file.FileStreamSinkConnector');
  assert.deepEqual(doc.plans[0]?.identity.topics, { topics: topic });
  assert.equal(`kafka:${doc.plans[0]?.identity.kafkaClusterId}`, doc.clusterKey);
  assert.equal(doc.plans[0]?.targetOffsets[0]?.offset.kafka_offset, 5);

  // Meanwhile the sink consumes five more records: its committed offset moves on to 25.
  await appendRecords(bootstrap, topic, { from: 20, count: 5, partitions: 1 });
  await waitFor(`${sink} to commit 25`, async () => (await committed(sink)) === 25);
  await waitFor(`${sink} to write 25 records`, async () => fileLines(out).length === 25);

  const applied = await cli(['apply', plan, '--yes']);
  assert.equal(applied.status, 0, applied.stderr);
  assert.match(applied.stdout, /Saved plan .*rewind of .*planned by .*@.* digest sha256:/);
  assert.match(applied.stdout, /moved on by 5: 5 more record\(s\) replayed/);
  // Exactly the planned position: the sink re-delivers rec-5 … rec-24 after the 25 it had written.
  await waitFor(`${sink} to write the replayed records`, async () => fileLines(out).length >= 45, 120_000);
  const lines = fileLines(out);
  assert.deepEqual(lines.slice(25), Array.from({ length: 20 }, (_, k) => `rec-${k + 5}`));
  await cluster.waitRunning(sink);

  const [run] = JSON.parse((await cli(['runs', '-o', 'json'])).stdout) as Array<{ id: string; status: string }>;
  assert.equal(run?.status, 'succeeded');
  const shown = JSON.parse((await cli(['runs', 'show', run!.id, '-o', 'json'])).stdout) as { context: { planDigest?: string; snapshotId?: string } };
  assert.equal(shown.context.planDigest, doc.digest);
  assert.ok(shown.context.snapshotId, 'a snapshot was taken when the plan was applied');

  const again = await cli(['apply', plan, '--yes']);
  assert.equal(again.status, 2, again.stderr);
  assert.match(again.stderr, new RegExp(`was applied by run ${run!.id}`));
});

test('a plan edited by hand is refused, naming the part that was edited, and nothing changes', async () => {
  const source = await cluster.createSource(6);
  const before = await cluster.offsets(source.name);
  const offsets = join(stateDir, 'edit-offsets.json');
  writeFileSync(offsets, JSON.stringify({ offsets: [{ partition: { filename: source.file }, offset: { position: 0 } }] }));
  const plan = join(stateDir, 'edited.plan.json');
  const planned = await cli(['rewind', source.name, '--offsets', offsets, '--plan-out', plan]);
  assert.equal(planned.status, 0, planned.stderr);
  const doc = JSON.parse(readFileSync(plan, 'utf8')) as { plans: Array<{ targetOffsets: Array<{ offset: { position: number } }>; inputs: { offsets: Array<{ offset: { position: number } }> } }> };
  // Someone changes the target in both places it appears, as a careful hand would.
  doc.plans[0]!.targetOffsets[0]!.offset.position = 3;
  doc.plans[0]!.inputs.offsets[0]!.offset.position = 3;
  writeFileSync(plan, JSON.stringify(doc, null, 2));
  const r = await cli(['apply', plan, '--yes']);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /was changed after it was written: its digest is sha256:[0-9a-f]+ but its content gives sha256:[0-9a-f]+ \(edited: connector ops-src/);
  assert.deepEqual(sortedOffsets(await cluster.offsets(source.name)), sortedOffsets(before));
  assert.equal((await cluster.status(source.name)).connector.state, 'RUNNING');
  assert.deepEqual(JSON.parse((await cli(['runs', '--connector', source.name, '-o', 'json'])).stdout), []);
  // Not JSON at all is refused the same way.
  writeFileSync(plan, '{"format": "offsetctl-plan/1", ');
  const broken = await cli(['apply', plan, '--yes']);
  assert.equal(broken.status, 2, broken.stderr);
  assert.match(broken.stderr, /is not JSON/);
});

test('a plan for a connector deleted and created again with other topics is refused (exit 2), and nothing changes', async () => {
  const first = await timedSink(4);
  const other = uniqueName('reviewed-other');
  topics.push(other);
  await createTimedTopic(bootstrap, other, { partitions: 1, count: 3, baseMs: Date.now() - 3 * MINUTE });
  const plan = join(stateDir, 'recreated.plan.json');
  const planned = await cli(['reset', first.sink, '--plan-out', plan]);
  assert.equal(planned.status, 0, planned.stderr);
  // The same name, now consuming another topic.
  await cluster.deleteConnector(first.sink);
  await cluster.createConnector(first.sink, {
    'connector.class': 'org.apache.kafka.connect.file.FileStreamSinkConnector', 'tasks.max': '1', file: join(cluster.dir, `${first.sink}-2.out`), topics: other,
    'key.converter': 'org.apache.kafka.connect.storage.StringConverter', 'value.converter': 'org.apache.kafka.connect.storage.StringConverter',
  });
  await cluster.waitRunning(first.sink);
  // The new sink commits the 3 records of `other` when it flushes, a few seconds from now: read
  // "before" after that commit, or a slow machine sees the offsets change under the refused apply.
  await waitFor(`${first.sink} to commit the 3 records of ${other}`, async () =>
    (await cluster.offsets(first.sink)).offsets.some((e) => e.partition.kafka_topic === other && Number(e.offset?.kafka_offset) === 3));
  const before = await cluster.offsets(first.sink);
  const r = await cli(['apply', plan, '--yes']);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, new RegExp(`is not the connector the plan was made for \\(deleted and created again\\?\\): topics "${first.topic}" when planned, "${other}" now`));
  assert.deepEqual(sortedOffsets(await cluster.offsets(first.sink)), sortedOffsets(before));
  assert.equal((await cluster.status(first.sink)).connector.state, 'RUNNING');
  assert.deepEqual(JSON.parse((await cli(['runs', '--connector', first.sink, '-o', 'json'])).stdout), []);
  // Deleted and not created again: refused as well.
  await cluster.deleteConnector(first.sink);
  const gone = await cli(['apply', plan, '--yes', '-o', 'json']);
  assert.equal(gone.status, 2, gone.stderr);
  assert.equal((JSON.parse(gone.stdout) as { error: { code: string; message: string } }).error.code, 'E_PLAN_STALE');
  assert.match(gone.stdout, /no longer exists/);
});

test('offsets that went back since planning change the plan: --yes alone is refused with what moved, --accept-moved-offsets applies it', async () => {
  const source = await cluster.createSource(10);
  const at = (await cluster.offsets(source.name)).offsets[0]!.offset as { position: number };
  const offsets = join(stateDir, 'moved-offsets.json');
  const target = Math.floor(at.position / 2);
  writeFileSync(offsets, JSON.stringify({ offsets: [{ partition: { filename: source.file }, offset: { position: target } }] }));
  const plan = join(stateDir, 'moved.plan.json');
  assert.equal((await cli(['rewind', source.name, '--offsets', offsets, '--plan-out', plan])).status, 0);
  // Someone else rewinds the connector to the start before the plan is applied.
  const zero = join(stateDir, 'zero.json');
  writeFileSync(zero, JSON.stringify({ offsets: [{ partition: { filename: source.file }, offset: { position: 0 } }] }));
  const other = await cli(['rewind', source.name, '--offsets', zero, '--yes', '--leave-stopped']);
  assert.equal(other.status, 0, other.stderr);
  const r = await cli(['apply', plan, '--yes']);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /the starting offsets moved since the plan was made, and that changes what it does/);
  assert.match(r.stderr, new RegExp(`\\{"position":${at.position}\\} when planned, \\{"position":0\\} now, target \\{"position":${target}\\}: went back since planning`));
  assert.match(r.stderr, /--accept-moved-offsets/);
  assert.match(r.stdout, /CHANGES THE PLAN/);
  assert.deepEqual((await cluster.offsets(source.name)).offsets[0]?.offset, { position: 0 });
  const accepted = await cli(['apply', plan, '--yes', '--accept-moved-offsets']);
  assert.equal(accepted.status, 0, accepted.stderr);
  assert.deepEqual((await cluster.offsets(source.name)).offsets[0]?.offset, { position: target });
});

test('a plan older than --max-age is refused before the cluster is asked anything', async () => {
  const source = await cluster.createSource(3);
  const http = new HttpClient();
  const store = openStore(tempDir('offsetctl-reviewed-age-'));
  try {
    const ctx = { url: cluster.url, http, store };
    const p = await planRewind(ctx, { connector: source.name, offsets: [{ partition: { filename: source.file }, offset: { position: 0 } }] });
    const file = join(stateDir, 'old.plan.json');
    writeFileSync(file, JSON.stringify(savePlan([p], { plannedBy: { user: 'tester@host', via: 'cli' }, now: new Date(Date.now() - 25 * 3_600_000) })));
    const r = await cli(['apply', file, '--yes']);
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, /the plan was made 25 h ago .*older than the maximum age of 24 h/);
    const shorter = await cli(['apply', file, '--yes', '--max-age', '2d']);
    assert.equal(shorter.status, 0, shorter.stderr);
    const bad = await cli(['apply', file, '--yes', '--max-age', 'soon']);
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--max-age soon is not an age/);
  } finally {
    await store.close();
    await http.close();
  }
});

test('a batch plan (--selector) is written as one file and applied as one batch; runs resume takes no --plan-out', async () => {
  const prefix = uniqueName('reviewed-batch');
  const a = await cluster.createSource(3, { fileName: `${prefix}-a.txt` });
  const b = await cluster.createSource(3, { fileName: `${prefix}-b.txt` });
  const selector = `^(${a.name}|${b.name})$`;
  const plan = join(stateDir, 'batch.plan.json');
  // Left STOPPED: a FileStreamSource put back to RUNNING would read its file again at once.
  const planned = await cli(['reset', '--selector', selector, '--leave-stopped', '--plan-out', plan]);
  assert.equal(planned.status, 0, planned.stderr);
  const doc = JSON.parse(readFileSync(plan, 'utf8')) as { plans: Array<{ connector: string }>; selection: string };
  assert.deepEqual(doc.plans.map((p) => p.connector).sort(), [a.name, b.name].sort());
  assert.equal(doc.selection, `--selector ${selector}`);
  assert.equal(stillSet((await cluster.offsets(a.name)).offsets).length, 1, 'planning changed nothing');
  const r = await cli(['apply', plan, '--yes', '-o', 'json']);
  assert.equal(r.status, 0, r.stderr);
  const summary = JSON.parse(r.stdout) as { batchId: string; counts: { succeeded: number } };
  assert.equal(summary.counts.succeeded, 2);
  const runs = JSON.parse((await cli(['runs', '--batch', summary.batchId, '-o', 'json'])).stdout) as unknown[];
  assert.equal(runs.length, 2);
  for (const name of [a.name, b.name]) assert.deepEqual(stillSet((await cluster.offsets(name)).offsets), []);
  const resume = await cli(['runs', 'resume', 'run-x', '--plan-out', plan]);
  assert.equal(resume.status, 2);
  assert.match(resume.stderr, /--plan-out is not for `runs resume`/);
});

test('a batch plan killed half-way: runs --batch lists every member, the plan is not applied again, and runs resume --batch finishes the rest', async () => {
  const prefix = uniqueName('reviewed-kill');
  const sources = [];
  for (const x of ['a', 'b', 'c']) sources.push(await cluster.createSource(3, { fileName: `${prefix}-${x}.txt` }));
  const names = sources.map((x) => x.name);
  const plan = join(stateDir, 'killed.plan.json');
  const planned = await cli(['reset', ...names, '--leave-stopped', '--plan-out', plan]);
  assert.equal(planned.status, 0, planned.stderr);
  // --concurrency 1: the first connector's reset kills the process; two never started.
  const killed = await runCli(['apply', plan, '--yes', '--concurrency', '1', '--url', cluster.url, '--state-dir', stateDir], { env: { ...env, OFFSETCTL_TEST_KILL_BEFORE_STEP: 'resetOffsets' } });
  assert.equal(killed.signal, 'SIGKILL', killed.stderr);
  const batchId = /Batch (batch-\S+):/.exec(killed.stdout)?.[1];
  assert.ok(batchId, killed.stdout);
  const listed = JSON.parse((await cli(['runs', '--batch', batchId, '-o', 'json'])).stdout) as Array<{ connector: string; status: string }>;
  assert.deepEqual(listed.map((r) => r.connector).sort(), [...names].sort(), 'every member is listed');
  assert.deepEqual(listed.map((r) => r.status).sort(), ['interrupted', 'not started', 'not started']);
  const again = await cli(['apply', plan, '--yes']);
  assert.equal(again.status, 2, 'a plan applied in part is not applied again');
  assert.match(again.stderr, /interrupted: finish it with `offsetctl runs resume run-/);
  const resumed = await cli(['runs', 'resume', '--batch', batchId, '--yes', '-o', 'json']);
  assert.equal(resumed.status, 0, resumed.stdout + resumed.stderr);
  const summary = JSON.parse(resumed.stdout) as { total: number; counts: { succeeded: number } };
  assert.deepEqual([summary.total, summary.counts.succeeded], [3, 3], resumed.stdout);
  for (const name of names) assert.deepEqual(stillSet((await cluster.offsets(name)).offsets), [], name);
});

test('a rollback plan (rollback --plan-out) changes nothing when written, and apply restores the snapshot it names', async () => {
  const source = await cluster.createSource(5);
  const before = await cluster.offsets(source.name);
  const zero = join(stateDir, 'rollback-zero.json');
  writeFileSync(zero, JSON.stringify({ offsets: [{ partition: { filename: source.file }, offset: { position: 0 } }] }));
  assert.equal((await cli(['rewind', source.name, '--offsets', zero, '--yes', '--leave-stopped'])).status, 0);
  const rewound = await cluster.offsets(source.name);
  const plan = join(stateDir, 'rollback.plan.json');
  const planned = await cli(['rollback', source.name, '--plan-out', plan]);
  assert.equal(planned.status, 0, planned.stderr);
  assert.deepEqual(sortedOffsets(await cluster.offsets(source.name)), sortedOffsets(rewound), 'writing the plan changed nothing');
  const saved = JSON.parse(readFileSync(plan, 'utf8')) as { operation: string; plans: Array<{ snapshotId?: string }> };
  assert.equal(saved.operation, 'rollback');
  assert.match(saved.plans[0]?.snapshotId ?? '', /^snap-/);
  const applied = await cli(['apply', plan, '--yes']);
  assert.equal(applied.status, 0, applied.stderr);
  assert.deepEqual(sortedOffsets(await cluster.offsets(source.name)), sortedOffsets(before));
  await cluster.waitRunning(source.name);
});
