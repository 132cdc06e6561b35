// The two-sided rewind of an Apache Iceberg sink (issue 34), on the plugins sandbox with the real
// plugin and its REST catalog: 30 records with distinct ids committed in two commits (10, then
// 20), a rewind to offset 10 (held before its stop while 5 more commit) sets the table back to the
// first commit's snapshot through the catalog and the group to 10; the replay then leaves exactly
// 35 rows with 35 distinct ids (a group-only rewind made 50 of 30). The table is read row by row with Iceberg's own generic reader
// (test/support/iceberg-read/ReadTable.java on the plugin's jars). `rollback` then restores the
// table's snapshot and the group's offsets together. Skipped without the iceberg-sink plugin;
// OFFSETCTL_REQUIRE_PLUGINS=1 makes that a failure.
// Real parts: the plugins sandbox (Kafka, Connect, Debezium/JDBC/Iceberg, a CDC PostgreSQL), a SQLite store file, child processes, spawns the CLI.
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { Admin, Producer, stringSerializers } from '@platformatic/kafka';
import { runCli } from '../support/cli.js';
import { ConnectRest, tempDir, uniqueName, waitFor } from '../support/connect.js';
import { requirePlugins } from '../support/plugin-sandbox.js';
import { repoRoot } from '../support/repo.js';

async function produce(bootstrap: string, topic: string, from: number, to: number): Promise<void> {
  const producer = new Producer({ clientId: 'iceberg-rewind-test', bootstrapBrokers: [bootstrap], serializers: stringSerializers });
  try {
    await producer.send({ messages: Array.from({ length: to - from + 1 }, (_v, i) => ({ topic, key: String(from + i),
      value: JSON.stringify({ id: from + i }) })) });
  } finally {
    await producer.close();
  }
}

/** The table's current snapshot: id (exact, as text: ids exceed 2^53) and its summary's total-records. */
async function current(uri: string, ns: string): Promise<{ id: string; total: number } | undefined> {
  const text = await (await fetch(`${uri}/v1/namespaces/${ns}/tables/events`)).text();
  const exact = JSON.parse(text.replace(/"((?:current-|parent-)?snapshot-id)"\s*:\s*(-?\d+)/g,
    '"$1":"$2"')) as { metadata?: { 'current-snapshot-id'?: string; snapshots?: Array<{ 'snapshot-id': string; summary: Record<string, string> }> } };
  const id = exact.metadata?.['current-snapshot-id'];
  if (!id || id === '-1') return undefined;
  const snapshot = exact.metadata?.snapshots?.find((s) => s['snapshot-id'] === id);
  return { id, total: Number(snapshot?.summary['total-records']) };
}

async function groupOffset(rest: ConnectRest, name: string): Promise<number | undefined> {
  const { offsets } = await rest.offsets(name);
  const v = (offsets[0]?.offset as { kafka_offset?: number } | null)?.kafka_offset;
  return v === undefined ? undefined : Number(v);
}

/**
 * Every row of the table through Iceberg's generic reader: rows and distinct ids. Its Parquet
 * reader needs one Hadoop class the sink's jars leave out (ParquetInputFormat's superclass, from
 * hadoop-mapreduce-client-core): resolved from Maven Central once, like the sandbox's plugins.
 */
async function readRows(pluginDir: string, uri: string, table: string): Promise<{ rows: number; distinctIds: number; snapshot: string }> {
  const run = promisify(execFile);
  const mapreduce = 'org.apache.hadoop:hadoop-mapreduce-client-core:3.4.1';
  await run('mvn', ['-q', 'dependency:get', `-Dartifact=${mapreduce}`, '-Dtransitive=false'], { timeout: 300_000 });
  const jar = join(homedir(), '.m2', 'repository', 'org', 'apache', 'hadoop', 'hadoop-mapreduce-client-core', '3.4.1',
    'hadoop-mapreduce-client-core-3.4.1.jar');
  const { stdout } = await run('java', ['-cp', `${pluginDir}/*:${jar}`, join(repoRoot, 'test', 'support', 'iceberg-read', 'ReadTable.java'), uri,
    table], { timeout: 120_000 });
  return JSON.parse(stdout.trim().split('\n').pop()!) as { rows: number; distinctIds: number; snapshot: string };
}

test('Iceberg sink: rewind 30 -> 10 sets the table back with the group (35 rows, 35 distinct ids, 5 committed while the run waited), and rollback restores table and group', { timeout: 900_000 }, async (t) => {
  const sandbox = await requirePlugins(t, ['iceberg-sink']);
  if (!sandbox) return;
  const status = JSON.parse((await runCli(['sandbox', 'status', '--output', 'json'])).stdout) as { plugins: Array<{ name: string; dir: string }> };
  const pluginDir = join(status.plugins.find((p) => p.name === 'iceberg-sink')!.dir, 'iceberg-sink');
  const uri = sandbox.iceberg!.catalog.uri;
  const id = uniqueName('icerw').replace(/-/g, '_');
  const topic = `ice-rw-${id}`;
  const name = id.replace(/_/g, '-');
  const url = sandbox.connect[0]!;
  const rest = new ConnectRest(url);
  const stateDir = tempDir('offsetctl-iceberg-');
  const catalog = (method: string, path: string, body?: unknown) => fetch(`${uri}${path}`, { method, ...(body ? { body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' } } : {}) });
  t.after(async () => {
    await rest.deleteConnector(name).catch(() => undefined);
    await catalog('DELETE', `/v1/namespaces/${id}/tables/events?purgeRequested=true`).catch(() => undefined);
    await catalog('DELETE', `/v1/namespaces/${id}`).catch(() => undefined);
    const admin = new Admin({ clientId: 'iceberg-rewind-test', bootstrapBrokers: [sandbox.bootstrap] });
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined).finally(() => admin.close());
  });
  assert.equal((await catalog('POST', '/v1/namespaces', { namespace: [id] })).status, 200);
  const admin = new Admin({ clientId: 'iceberg-rewind-test', bootstrapBrokers: [sandbox.bootstrap] });
  await admin.createTopics({ topics: [topic], partitions: 1, replicas: 1 }).finally(() => admin.close());
  await produce(sandbox.bootstrap, topic, 1, 10);
  await rest.createConnector(name, {
    'connector.class': 'org.apache.iceberg.connect.IcebergSinkConnector', 'tasks.max': '1', topics: topic,
    'iceberg.tables': `${id}.events`, 'iceberg.tables.auto-create-enabled': 'true', 'iceberg.catalog.type': 'rest', 'iceberg.catalog.uri': uri,
    'iceberg.control.commit.interval-ms': '2000',
    'key.converter': 'org.apache.kafka.connect.storage.StringConverter', 'value.converter': 'org.apache.kafka.connect.json.JsonConverter', 'value.converter.schemas.enable': 'false',
  });
  const first = await waitFor('the first commit (10 rows)', async () => ((await current(uri, id))?.total === 10 ? current(uri, id) : undefined), 240_000, 1000);
  await produce(sandbox.bootstrap, topic, 11, 30);
  const before = await waitFor('the second commit (30 rows)', async () => ((await current(uri, id))?.total === 30 && (await groupOffset(rest,
    name)) === 30 ? current(uri, id) : undefined), 240_000, 1000);

  const where = ['--url', url, '--state-dir', stateDir];
  const common = [...where, '--bootstrap', sandbox.bootstrap];
  const dry = await runCli(['rewind', name, '--to-offset', '10', '--partition', `${topic}:0`, '--dry-run', ...common]);
  assert.equal(dry.status, 0, dry.stderr);
  assert.match(dry.stderr, /no dedup or upsert: 20 record\(s\) will be appended again as new rows; without the table step they would be there twice/);
  assert.match(dry.stderr,
    new RegExp(`${id}\\.events \\(branch main\\) goes back from snapshot ${before!.id} \\(30 rows\\) to snapshot ${first!.id} of [^)]+\\(10 rows\\): 20 row\\(s\\) removed`));
  assert.equal((await current(uri, id))?.id, before!.id, 'a dry run changes no table');

  // The sink keeps committing until it is stopped: the run is held before its stop while 5 more
  // records are committed (the table's head moves past the planned one), then let go. The table
  // step must name the head as it is after the stop, and the rollback restore that head.
  const release = join(stateDir, 'release');
  const rewinding = runCli(['rewind', name, '--to-offset', '10', '--partition', `${topic}:0`, '--yes', '--output', 'json', ...common],
    { env: { OFFSETCTL_TEST_PAUSE_BEFORE_STEP: 'stopConnector', OFFSETCTL_TEST_RELEASE_FILE: release, OFFSETCTL_TEST_PAUSE_MS: '600000' } });
  await produce(sandbox.bootstrap, topic, 31, 35);
  const moved = await waitFor('the commit of 35 rows while the run waits', async () => {
    const now = await current(uri, id);
    return now && now.total === 35 && (await groupOffset(rest, name)) === 35 ? now : undefined;
  }, 240_000, 1000);
  writeFileSync(release, '');
  const rewind = await rewinding;
  assert.equal(rewind.status, 0, `${rewind.stdout}\n${rewind.stderr.slice(-3000)}`);
  const outcome = JSON.parse(rewind.stdout) as { status: string; message: string; snapshotId: string };
  assert.equal(outcome.status, 'succeeded', outcome.message);

  const replayed = await waitFor('the replay commit', async () => {
    const now = await current(uri, id);
    // A new commit after the rewind (the replay), whatever it holds: the rows tell (a group-only rewind made 60).
    return now && ![first!.id, before!.id, moved!.id].includes(now.id) && (await groupOffset(rest, name)) === 35 ? now : undefined;
  }, 240_000, 1000);
  const rows = await readRows(pluginDir, uri, `${id}.events`);
  assert.deepEqual({ rows: rows.rows, distinctIds: rows.distinctIds, snapshot: rows.snapshot }, { rows: 35, distinctIds: 35, snapshot: replayed!.id });
  assert.equal(replayed!.total, 35);
  assert.match(outcome.message,
    new RegExp(`Iceberg table ${id}\\.events \\(branch main\\) set back from snapshot ${moved!.id} to ${first!.id} \\(25 row\\(s\\) removed\\)`));

  const rollback = await runCli(['rollback', name, '--snapshot', outcome.snapshotId, '--yes', ...where]);
  assert.equal(rollback.status, 0, rollback.stderr);
  assert.match(`${rollback.stdout}${rollback.stderr}`, new RegExp(`set back from snapshot ${replayed!.id} to ${moved!.id}`));
  assert.equal((await current(uri, id))?.id, moved!.id, 'rollback restores the table\'s snapshot recorded with the offsets snapshot');
  assert.equal(await groupOffset(rest, name), 35);
  const restored = await readRows(pluginDir, uri, `${id}.events`);
  assert.deepEqual(restored, { rows: 35, distinctIds: 35, snapshot: moved!.id });

  // The requirement is what makes a concurrent commit fail the table step: a stale current snapshot answers 409, nothing changes.
  const stale = await runCli(['workflow', 'run', join(repoRoot, 'workflows', 'set-iceberg-table-snapshot.arazzo.yaml'), '--server', `${uri}/v1`,
    '--input', `namespace=${id}`, '--input', 'table=events', '--input', `currentSnapshotId="${first!.id}"`, '--input', `targetSnapshotId="${first!.id}"`]);
  assert.notEqual(stale.status, 0, stale.stdout);
  assert.match(`${stale.stdout}${stale.stderr}`, /409/);
  assert.equal((await current(uri, id))?.id, moved!.id);

  // Someone sets the branch elsewhere between the plan and the stop: the run fails at the table
  // step, before any offset is written, says so, and puts the connector back.
  const release2 = join(stateDir, 'release-2');
  const held = runCli(['rewind', name, '--to-offset', '10', '--partition', `${topic}:0`, '--yes', '--output', 'json', ...common],
    { env: { OFFSETCTL_TEST_PAUSE_BEFORE_STEP: 'stopConnector', OFFSETCTL_TEST_RELEASE_FILE: release2, OFFSETCTL_TEST_PAUSE_MS: '600000' } });
  await waitFor('the run to be planned and held before its stop', async () => {
    const runs = JSON.parse((await runCli(['runs', '--output', 'json', '--state-dir', stateDir])).stdout) as Array<{ status: string }>;
    return runs.some((r) => r.status === 'running');
  }, 60_000, 500);
  const elsewhere = await runCli(['workflow', 'run', join(repoRoot, 'workflows', 'set-iceberg-table-snapshot.arazzo.yaml'), '--server', `${uri}/v1`,
    '--input', `namespace=${id}`, '--input', 'table=events', '--input', `currentSnapshotId="${moved!.id}"`, '--input', `targetSnapshotId="${first!.id}"`]);
  assert.equal(elsewhere.status, 0, elsewhere.stderr);
  writeFileSync(release2, '');
  const refused = await held;
  assert.equal(refused.status, 1, refused.stderr);
  const account = JSON.parse(refused.stdout) as { status: string; message: string; connectorState: string };
  assert.match(account.message,
    new RegExp(`failed at the Iceberg table step, before any offset was written: Iceberg table ${id}\\.events \\(branch main\\) is at snapshot ${first!.id}, which does not follow ${moved!.id} as planned`));
  assert.equal(account.connectorState, 'RUNNING');
  // The stored account (runs) says the same, and the successful rewind's names the table it set back.
  const history = JSON.parse((await runCli(['runs', '--output', 'json', '--state-dir', stateDir])).stdout) as Array<{ status: string; message?: string }>;
  assert.ok(history.some((r) => r.status === 'failed' && /failed at the Iceberg table step, before any offset was written/.test(r.message ?? '')),
    JSON.stringify(history));
  assert.ok(history.some((r) => r.status === 'succeeded' && new RegExp(`set back from snapshot ${moved!.id} to ${first!.id}`).test(r.message ?? '')));
  assert.equal(await groupOffset(rest, name), 35);
  assert.equal((await current(uri, id))?.id, first!.id);

  // A reset would replay the whole topic; the table the sink created has no snapshot before its
  // first commit, so setting it back would empty it: the dry run says so, a real reset is refused
  // (exit 2) and nothing changes.
  // reset has no --bootstrap: the cluster comes from OFFSETCTL_BOOTSTRAP (or the context's bootstrap).
  const kafkaEnv = { env: { OFFSETCTL_BOOTSTRAP: sandbox.bootstrap } };
  const resetDry = await runCli(['reset', name, '--dry-run', ...where], kafkaEnv);
  assert.equal(resetDry.status, 0, resetDry.stderr);
  assert.match(resetDry.stderr, /the tables cannot be set back: .*would empty the table.*A real reset is refused for that reason/);
  const reset = await runCli(['reset', name, '--yes', ...where], kafkaEnv);
  assert.equal(reset.status, 2, reset.stderr);
  assert.match(reset.stderr, /would empty the table[\s\S]*nothing was changed/);
  assert.equal(await groupOffset(rest, name), 35);
  assert.equal((await rest.status(name)).connector.state, 'RUNNING');
});
