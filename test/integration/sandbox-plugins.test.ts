// Real plugins in the sandbox (`sandbox up --plugin debezium-postgres --plugin debezium-jdbc-sink
// --plugin iceberg-sink --cdc-postgres`), on the sandbox the tests are pointed at
// (OFFSETCTL_SANDBOX_DIR): starting one of its own would cost minutes. A sandbox without the
// plugins skips these tests, saying how to start one; with OFFSETCTL_REQUIRE_PLUGINS=1 (the CI
// lane of the plugin tests) it fails instead, so a lane that lost its plugins cannot pass green.
// Real parts: the plugins sandbox (Kafka, Connect, Debezium/JDBC/Iceberg, a CDC PostgreSQL), a loopback HTTP server, spawns the CLI.
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { Admin, Producer, stringSerializers } from '@platformatic/kafka';
import { runCli } from '../support/cli.js';
import { ConnectRest, uniqueName, waitFor } from '../support/connect.js';
import { readValues } from '../support/positions-kafka.js';

interface PluginStatus {
  running: boolean;
  connect: string[];
  bootstrap: string;
  dir: string;
  plugins?: Array<{ name: string; coordinates: string[]; dir: string }>;
  cdc?: { url: string; host: string; port: number; user: string; database: string };
  iceberg?: { catalog: { uri: string; type: string }; warehouse: string };
}

const requireCjs = createRequire(import.meta.url);
const UP = 'offsetctl sandbox up --plugin debezium-postgres --plugin debezium-jdbc-sink --plugin iceberg-sink --cdc-postgres';

let statusPromise: Promise<PluginStatus> | undefined;
function sandboxStatus(): Promise<PluginStatus> {
  statusPromise ??= runCli(['sandbox', 'status', '--output', 'json']).then((cli) => JSON.parse(cli.stdout) as PluginStatus);
  return statusPromise;
}

/**
 * The sandbox when it has what `needs` names; otherwise the test is skipped with how to start
 * one, or fails when OFFSETCTL_REQUIRE_PLUGINS=1.
 */
type Need = 'debezium-postgres' | 'debezium-jdbc-sink' | 'iceberg-sink' | 'cdc';

async function pluginSandbox(t: TestContext, needs: Need[]): Promise<PluginStatus | undefined> {
  const status = await sandboxStatus();
  const loaded = new Set((status.plugins ?? []).map((p) => p.name));
  const missing = needs.filter((n) => (n === 'cdc' ? !status.cdc : !loaded.has(n)));
  if (status.running && missing.length === 0) return status;
  const why = `the sandbox at ${status.dir} ${status.running ? `lacks ${missing.join(', ')}` : 'is not running'}: `
    + `start one with \`OFFSETCTL_SANDBOX_DIR=<folder> ${UP}\` and run this file with that OFFSETCTL_SANDBOX_DIR`;
  if (process.env['OFFSETCTL_REQUIRE_PLUGINS'] === '1') assert.fail(`OFFSETCTL_REQUIRE_PLUGINS=1 but ${why}`);
  t.skip(why);
  return undefined;
}

test('a --plugin that is neither a known name nor Maven coordinates is refused before anything starts (exit 2)', async () => {
  const dir = join(tmpdir(), uniqueName('offsetctl-plugin-refusal'));
  const cli = await runCli(['sandbox', 'up', '--dir', dir, '--plugin', 'debezium']);
  assert.equal(cli.status, 2, cli.stderr);
  assert.match(cli.stderr, /--plugin "debezium": give a known plugin \(debezium-postgres, debezium-jdbc-sink, iceberg-sink\) or Maven coordinates/);
  assert.equal(existsSync(dir), false, 'nothing was created');
});

test('the three plugins are listed by GET /connector-plugins, and status says which are loaded', async (t) => {
  const status = await pluginSandbox(t, ['debezium-postgres', 'debezium-jdbc-sink', 'iceberg-sink']);
  if (!status) return;
  const rest = new ConnectRest(status.connect[0] as string);
  const plugins = await rest.expect<Array<{ class: string; version: string }>>('GET', '/connector-plugins', [200]);
  const classes = new Map(plugins.map((p) => [p.class, p.version]));
  assert.equal(classes.get('io.debezium.connector.jdbc.JdbcSinkConnector'), '3.6.0.Final');
  assert.equal(classes.get('io.debezium.connector.postgresql.PostgresConnector'), '3.6.1.Final');
  assert.equal(classes.get('org.apache.iceberg.connect.IcebergSinkConnector'), '1.12.0');
  const text = await runCli(['sandbox', 'status']);
  assert.match(text.stdout, /plugins {4}.*debezium-postgres.*debezium-jdbc-sink.*iceberg-sink/);
});

interface PgClient {
  connect(): Promise<void>;
  query(text: string): Promise<{ rows: Array<Record<string, unknown>> }>;
  end(): Promise<void>;
}

type Cdc = NonNullable<PluginStatus['cdc']>;

async function cdcClient(cdc: Cdc): Promise<PgClient> {
  const { Client } = requireCjs('pg') as { Client: new (c: { connectionString: string }) => PgClient };
  const db = new Client({ connectionString: cdc.url });
  await db.connect();
  return db;
}

/** A Debezium PostgreSQL source of one table, with its own slot, publication and topic prefix `id`. */
function debeziumSource(cdc: Cdc, id: string, table: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    'connector.class': 'io.debezium.connector.postgresql.PostgresConnector',
    'database.hostname': cdc.host,
    'database.port': String(cdc.port),
    'database.user': cdc.user,
    'database.dbname': cdc.database,
    'topic.prefix': id,
    'plugin.name': 'pgoutput',
    'slot.name': `slot_${id}`,
    'publication.name': `pub_${id}`,
    'publication.autocreate.mode': 'filtered',
    'table.include.list': `public.${table}`,
    'snapshot.mode': 'initial',
    ...extra,
  };
}

async function waitForActiveSlot(db: PgClient, id: string): Promise<void> {
  await waitFor(`the replication slot slot_${id} to be active`, async () =>
    (await db.query(`SELECT active FROM pg_replication_slots WHERE slot_name = 'slot_${id}'`)).rows[0]?.['active'] === true, 120_000, 500);
}

/** Deletes the connectors, then drops the slot once released, the publication and the tables. */
async function cleanUp(rest: ConnectRest, db: PgClient, id: string, connectors: string[], tables: string[]): Promise<void> {
  for (const c of connectors) await rest.deleteConnector(c).catch(() => undefined);
  // The slot outlives the connector: drop it once the task has let go, or WAL piles up.
  await waitFor('the slot to be released', async () => {
    const r = await db.query(`SELECT active FROM pg_replication_slots WHERE slot_name = 'slot_${id}'`);
    return r.rows.length === 0 || r.rows[0]?.['active'] === false;
  }, 60_000, 500).catch(() => undefined);
  await db.query(`SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = 'slot_${id}'`).catch(() => undefined);
  await db.query(`DROP PUBLICATION IF EXISTS pub_${id}`).catch(() => undefined);
  for (const t of tables) await db.query(`DROP TABLE IF EXISTS ${t}`).catch(() => undefined);
  await db.end();
}

test('Debezium PostgreSQL on the cdc source: the snapshot and rows inserted afterwards reach Kafka', { timeout: 300_000 }, async (t) => {
  const status = await pluginSandbox(t, ['debezium-postgres', 'cdc']);
  if (!status?.cdc) return;
  // The URL carries no password: the cdc source trusts its loopback superuser login.
  assert.doesNotMatch(status.cdc.url, /:[^/@]*@/);
  const db = await cdcClient(status.cdc);
  const id = uniqueName('dbz').replace(/-/g, '_');
  const table = `orders_${id}`;
  const name = `pg-src-${id}`.replace(/_/g, '-');
  const rest = new ConnectRest(status.connect[0] as string);
  t.after(() => cleanUp(rest, db, id, [name], [table]));
  assert.equal((await db.query('SHOW wal_level')).rows[0]?.['wal_level'], 'logical');
  await db.query(`CREATE TABLE ${table} (id int PRIMARY KEY, item text)`);
  await db.query(`INSERT INTO ${table} SELECT g, 'item ' || g FROM generate_series(1, 3) g`);
  await rest.expect('POST', '/connectors', [201], { name, config: debeziumSource(status.cdc, id, table) });
  await rest.waitForStatus(name, 'RUNNING with a running task', (s) => s.connector.state === 'RUNNING' && s.tasks[0]?.state === 'RUNNING', 120_000);
  // Streaming starts after the snapshot: the slot is active then.
  await waitForActiveSlot(db, id);
  await db.query(`INSERT INTO ${table} VALUES (4, 'four'), (5, 'five')`);
  const values = (await readValues(status.bootstrap, `${id}.public.${table}`, 5, 120_000)).map((v) => JSON.parse(v) as { op: string; after: { id: number } });
  assert.deepEqual(values.map((v) => v.after.id), [1, 2, 3, 4, 5]);
  assert.deepEqual(values.map((v) => v.op), ['r', 'r', 'r', 'c', 'c']);
  // Its offsets: keyed by the topic prefix, positioned by LSN (flushed within a second or so).
  const offsets = await waitFor('the connector\'s offsets', async () => {
    type Offsets = { offsets: Array<{ partition: { server?: string }; offset: { lsn?: number } }> };
    const body = await rest.expect<Offsets>('GET', `/connectors/${name}/offsets`, [200]);
    return body.offsets.length > 0 ? body.offsets : undefined;
  }, 60_000, 500);
  assert.equal(offsets[0]?.partition.server, id);
  assert.equal(typeof offsets[0]?.offset.lsn, 'number');
});

/** Iceberg snapshot ids are 64-bit: JSON.parse would round them, so they are kept as strings. */
function parseIceberg<T>(text: string): T {
  return JSON.parse(text.replace(/"((?:current-|parent-)?snapshot-id)":(-?\d+)/g, '"$1":"$2"')) as T;
}

interface TableMetadata {
  'current-snapshot-id'?: string;
  snapshots?: Array<{ 'snapshot-id': string; summary: Record<string, string> }>;
}

async function catalog(uri: string, method: string, path: string, body?: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${uri}${path}`, { method, ...(body ? { body, headers: { 'content-type': 'application/json' } } : {}) });
  return { status: res.status, text: await res.text() };
}

async function loadTable(uri: string, ns: string, table: string): Promise<TableMetadata> {
  const res = await catalog(uri, 'GET', `/v1/namespaces/${ns}/tables/${table}`);
  assert.equal(res.status, 200, res.text);
  return parseIceberg<{ metadata: TableMetadata }>(res.text).metadata;
}

function currentRecords(m: TableMetadata): number {
  const current = m.snapshots?.find((s) => s['snapshot-id'] === m['current-snapshot-id']);
  return Number(current?.summary['total-records'] ?? 0);
}

async function produce(bootstrap: string, topic: string, from: number, count: number): Promise<void> {
  const producer = new Producer({ clientId: 'sandbox-plugins-test', bootstrapBrokers: [bootstrap], serializers: stringSerializers });
  try {
    const messages = Array.from({ length: count }, (_, k) => ({ topic, key: String(from + k), value: JSON.stringify({ id: from + k, name: `n${from + k}` }) }));
    await producer.send({ messages });
  } finally {
    await producer.close();
  }
}

test('the Iceberg sink writes a topic into a table of the REST catalog; the table reads back, and rolls back through the catalog',
  { timeout: 400_000 }, async (t) => {
  const status = await pluginSandbox(t, ['iceberg-sink']);
  if (!status) return;
  assert.ok(status.iceberg, 'status -o json reports .iceberg with the plugin');
  assert.equal(status.iceberg.catalog.type, 'rest');
  assert.match(status.iceberg.warehouse, /^file:\/\//);
  const uri = status.iceberg.catalog.uri;
  const id = uniqueName('ice').replace(/-/g, '_');
  const topic = `ice-in-${id}`;
  const name = `ice-sink-${id}`.replace(/_/g, '-');
  const rest = new ConnectRest(status.connect[0] as string);
  t.after(async () => {
    await rest.deleteConnector(name).catch(() => undefined);
    await catalog(uri, 'DELETE', `/v1/namespaces/${id}/tables/events?purgeRequested=true`).catch(() => undefined);
    await catalog(uri, 'DELETE', `/v1/namespaces/${id}`).catch(() => undefined);
  });
  const config = await catalog(uri, 'GET', '/v1/config');
  assert.equal(config.status, 200, config.text);
  const created = await catalog(uri, 'POST', '/v1/namespaces', JSON.stringify({ namespace: [id] }));
  assert.equal(created.status, 200, created.text);
  assert.equal((await catalog(uri, 'HEAD', `/v1/namespaces/${id}`)).status, 204);
  const admin = new Admin({ clientId: 'sandbox-plugins-test', bootstrapBrokers: [status.bootstrap] });
  await admin.createTopics({ topics: [topic], partitions: 1, replicas: 1 }).finally(() => admin.close());
  await produce(status.bootstrap, topic, 1, 10);
  await rest.expect('POST', '/connectors', [201], {
    name,
    config: {
      'connector.class': 'org.apache.iceberg.connect.IcebergSinkConnector',
      'tasks.max': '1',
      topics: topic,
      'iceberg.tables': `${id}.events`,
      'iceberg.tables.auto-create-enabled': 'true',
      'iceberg.catalog.type': 'rest',
      'iceberg.catalog.uri': uri,
      // The default is 5 minutes: a commit every 3 s keeps the test short.
      'iceberg.control.commit.interval-ms': '3000',
      'key.converter': 'org.apache.kafka.connect.storage.StringConverter',
      'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
      'value.converter.schemas.enable': 'false',
    },
  });
  const first = await waitFor('the sink to commit 10 rows', async () => {
    const res = await catalog(uri, 'GET', `/v1/namespaces/${id}/tables/events`);
    if (res.status !== 200) return undefined;
    const m = parseIceberg<{ metadata: TableMetadata }>(res.text).metadata;
    return currentRecords(m) === 10 ? m : undefined;
  }, 240_000, 1000);
  const listed = await catalog(uri, 'GET', `/v1/namespaces/${id}/tables`);
  assert.deepEqual((JSON.parse(listed.text) as { identifiers: Array<{ name: string }> }).identifiers.map((i) => i.name), ['events']);
  const firstSnapshot = first['current-snapshot-id'] as string;
  const summary = first.snapshots?.find((s) => s['snapshot-id'] === firstSnapshot)?.summary ?? {};
  assert.ok(summary['kafka.connect.commit-id'], `the sink's commit id is in the summary: ${JSON.stringify(summary)}`);

  await produce(status.bootstrap, topic, 11, 5);
  const second = await waitFor('the sink to commit 15 rows', async () => {
    const m = await loadTable(uri, id, 'events');
    return currentRecords(m) === 15 ? m : undefined;
  }, 240_000, 1000);
  await rest.stop(name);
  await rest.waitForStatus(name, 'STOPPED', (s) => s.connector.state === 'STOPPED', 120_000);
  // A rollback with a requirement on the current snapshot: a stale one is refused (409), the right one moves the table back.
  const rollback = (expected: string): string => JSON.stringify({
    requirements: [{ type: 'assert-ref-snapshot-id', ref: 'main', 'snapshot-id': '@EXPECTED@' }],
    updates: [{ action: 'set-snapshot-ref', 'ref-name': 'main', type: 'branch', 'snapshot-id': '@TARGET@' }],
  }).replace('"@EXPECTED@"', expected).replace('"@TARGET@"', firstSnapshot);
  const stale = await catalog(uri, 'POST', `/v1/namespaces/${id}/tables/events`, rollback(firstSnapshot));
  assert.equal(stale.status, 409, stale.text);
  assert.match(stale.text, /CommitFailedException/);
  const done = await catalog(uri, 'POST', `/v1/namespaces/${id}/tables/events`, rollback(second['current-snapshot-id'] as string));
  assert.equal(done.status, 200, done.text);
  const after = await loadTable(uri, id, 'events');
  assert.equal(after['current-snapshot-id'], firstSnapshot);
  assert.equal(currentRecords(after), 10);
});

test('Debezium JDBC sink: a Debezium source\'s change events are written into a table of the cdc PostgreSQL, an update included',
  { timeout: 300_000 }, async (t) => {
  const status = await pluginSandbox(t, ['debezium-postgres', 'debezium-jdbc-sink', 'cdc']);
  if (!status?.cdc) return;
  const db = await cdcClient(status.cdc);
  const id = uniqueName('jdbc').replace(/-/g, '_');
  const [source, target] = [`src_${id}`, `sink_${id}`];
  const [sourceName, sinkName] = [`pg-src-${id}`.replace(/_/g, '-'), `jdbc-sink-${id}`.replace(/_/g, '-')];
  const rest = new ConnectRest(status.connect[0] as string);
  t.after(() => cleanUp(rest, db, id, [sinkName, sourceName], [source, target]));
  // The JDBC sink needs schemas (record_key mode reads the key's): converters with schemas on both
  // sides (a per-connector converter setting applies only with the converter class named too).
  const json = {
    'key.converter': 'org.apache.kafka.connect.json.JsonConverter', 'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
    'key.converter.schemas.enable': 'true', 'value.converter.schemas.enable': 'true',
  };
  await db.query(`CREATE TABLE ${source} (id int PRIMARY KEY, item text)`);
  await db.query(`INSERT INTO ${source} SELECT g, 'item ' || g FROM generate_series(1, 4) g`);
  await rest.expect('POST', '/connectors', [201], { name: sourceName, config: debeziumSource(status.cdc, id, source, json) });
  await rest.expect('POST', '/connectors', [201], {
    name: sinkName,
    config: {
      'connector.class': 'io.debezium.connector.jdbc.JdbcSinkConnector',
      'tasks.max': '1',
      topics: `${id}.public.${source}`,
      'connection.url': `jdbc:postgresql://${status.cdc.host}:${status.cdc.port}/${status.cdc.database}`,
      'connection.username': status.cdc.user,
      'connection.password': 'unused',
      'insert.mode': 'upsert',
      'primary.key.mode': 'record_key',
      'schema.evolution': 'basic',
      'collection.name.format': target,
      ...json,
    },
  });
  const rows = async (): Promise<string[]> =>
    (await db.query(`SELECT id, item FROM ${target} ORDER BY id`)).rows.map((r) => `${String(r['id'])}=${String(r['item'])}`);
  await waitFor('the snapshot rows in the target table', async () => ((await rows().catch(() => [])).length === 4 ? true : undefined), 180_000, 1000);
  await waitForActiveSlot(db, id);
  await db.query(`UPDATE ${source} SET item = 'two' WHERE id = 2`);
  await waitFor('the update in the target table', async () => ((await rows()).includes('2=two') ? true : undefined), 120_000, 1000);
  assert.deepEqual(await rows(), ['1=item 1', '2=two', '3=item 3', '4=item 4']);
  const sinkStatus = await rest.expect<{ tasks: Array<{ state: string }> }>('GET', `/connectors/${sinkName}/status`, [200]);
  assert.deepEqual(sinkStatus.tasks.map((x) => x.state), ['RUNNING']);
});
