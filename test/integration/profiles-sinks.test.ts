// Sinks whose target keeps what they wrote (issue 34), on the plugins sandbox with the real plugins:
// Debezium's JDBC sink into the CDC PostgreSQL and Apache Iceberg's sink into the sandbox's REST
// catalog. The dry run of a replay says what it does to the target (a duplicate key failure, rows
// appended again) before anything changes; a copy into the same Iceberg tables is refused.
// Skipped without those plugins; OFFSETCTL_REQUIRE_PLUGINS=1 makes that a failure.
// Real parts: the sandbox's Kafka broker and Connect cluster, spawns the CLI.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { Admin, Producer, stringSerializers } from '@platformatic/kafka';
import { runCli } from '../support/cli.js';
import { ConnectRest, uniqueName, waitFor } from '../support/connect.js';
import { cdcPool, requirePlugins } from '../support/plugin-sandbox.js';

async function topicWith(bootstrap: string, topic: string, messages: Array<{ key: string; value: string }>): Promise<void> {
  const admin = new Admin({ clientId: 'profiles-sinks-test', bootstrapBrokers: [bootstrap] });
  await admin.createTopics({ topics: [topic], partitions: 1, replicas: 1 }).finally(() => admin.close());
  const producer = new Producer({ clientId: 'profiles-sinks-test', bootstrapBrokers: [bootstrap], serializers: stringSerializers });
  try {
    await producer.send({ messages: messages.map((m) => ({ topic, ...m })) });
  } finally {
    await producer.close();
  }
}

async function deleteTopic(bootstrap: string, topic: string): Promise<void> {
  const admin = new Admin({ clientId: 'profiles-sinks-test', bootstrapBrokers: [bootstrap] });
  await admin.deleteTopics({ topics: [topic] }).catch(() => undefined).finally(() => admin.close());
}

/** Waits until the sink has committed `count` records of partition 0. */
async function committed(rest: ConnectRest, name: string, count: number): Promise<void> {
  await waitFor(`${name} to commit ${count} records`, async () => {
    const { offsets } = await rest.offsets(name);
    return offsets.some((o) => Number((o.offset as { kafka_offset?: number } | null)?.kafka_offset) === count);
  }, 240_000, 1000);
}

const JSON_WITH_SCHEMAS = {
  'key.converter': 'org.apache.kafka.connect.json.JsonConverter', 'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
  'key.converter.schemas.enable': 'true', 'value.converter.schemas.enable': 'true',
};

test('JDBC sink with insert.mode=insert and a key: the dry run of a replay says the task will fail on duplicate keys', { timeout: 600_000 }, async (t) => {
  const sandbox = await requirePlugins(t, ['debezium-jdbc-sink'], { cdc: true });
  if (!sandbox) return;
  const id = uniqueName('jdbc').replace(/-/g, '_');
  const topic = `jdbc-in-${id}`;
  const name = id.replace(/_/g, '-');
  const url = sandbox.connect[0]!;
  const rest = new ConnectRest(url);
  const keySchema = { type: 'struct', optional: false, fields: [{ field: 'id', type: 'int32', optional: false }] };
  const valueSchema = { type: 'struct', optional: false, fields: [{ field: 'id', type: 'int32', optional: false }, { field: 'note', type: 'string', optional: true }] };
  await topicWith(sandbox.bootstrap, topic, Array.from({ length: 10 }, (_v, i) => ({
    key: JSON.stringify({ schema: keySchema, payload: { id: i + 1 } }),
    value: JSON.stringify({ schema: valueSchema, payload: { id: i + 1, note: `order ${i + 1}` } }),
  })));
  const pool = cdcPool(sandbox.cdc!, 'postgres');
  t.after(async () => {
    await rest.deleteConnector(name).catch(() => undefined);
    await pool.query(`DROP TABLE IF EXISTS ${id}`).catch(() => undefined);
    await pool.end();
    await deleteTopic(sandbox.bootstrap, topic);
  });
  await rest.createConnector(name, {
    'connector.class': 'io.debezium.connector.jdbc.JdbcSinkConnector', 'tasks.max': '1', topics: topic,
    'connection.url': `jdbc:postgresql://${sandbox.cdc!.host}:${sandbox.cdc!.port}/postgres`, 'connection.username': sandbox.cdc!.user, 'connection.password': 'unused',
    'insert.mode': 'insert', 'primary.key.mode': 'record_key', 'schema.evolution': 'basic', 'collection.name.format': id, ...JSON_WITH_SCHEMAS,
  });
  await committed(rest, name, 10);
  assert.equal(Number((await pool.query(`SELECT count(*) AS n FROM ${id}`)).rows[0]!.n), 10);

  const dry = await runCli(['--url', url, 'rewind', name, '--to-earliest', '--bootstrap', sandbox.bootstrap, '--dry-run']);
  assert.equal(dry.status, 0, dry.stderr);
  assert.match(dry.stdout, /Debezium JDBC sink: insert\.mode insert, primary\.key\.mode record_key/);
  assert.match(dry.stderr, /insert\.mode=insert and a primary key \(primary\.key\.mode=record_key\): the task will fail on a duplicate key at the first of 10 record\(s\)/);
  const reset = await runCli(['--url', url, 'reset', name, '--dry-run']);
  assert.equal(reset.status, 0, reset.stderr);
  assert.match(reset.stderr, /the task will fail on a duplicate key at the first of every record still in its topics/);
});

test('Iceberg sink: the dry run of a rewind says how many rows it appends again; a copy into the same tables is refused', { timeout: 600_000 }, async (t) => {
  const sandbox = await requirePlugins(t, ['iceberg-sink']);
  if (!sandbox) return;
  const uri = sandbox.iceberg!.catalog.uri;
  const id = uniqueName('ice').replace(/-/g, '_');
  const topic = `ice-in-${id}`;
  const name = id.replace(/_/g, '-');
  const url = sandbox.connect[0]!;
  const rest = new ConnectRest(url);
  const catalog = (method: string, path: string, body?: unknown) => fetch(`${uri}${path}`, { method, ...(body ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}) });
  t.after(async () => {
    await rest.deleteConnector(name).catch(() => undefined);
    await catalog('DELETE', `/v1/namespaces/${id}/tables/events?purgeRequested=true`).catch(() => undefined);
    await catalog('DELETE', `/v1/namespaces/${id}`).catch(() => undefined);
    await deleteTopic(sandbox.bootstrap, topic);
  });
  assert.equal((await catalog('POST', '/v1/namespaces', { namespace: [id] })).status, 200);
  await topicWith(sandbox.bootstrap, topic, Array.from({ length: 30 }, (_v, i) => ({ key: String(i + 1), value: JSON.stringify({ id: i + 1 }) })));
  const config = {
    'connector.class': 'org.apache.iceberg.connect.IcebergSinkConnector', 'tasks.max': '1', topics: topic,
    'iceberg.tables': `${id}.events`, 'iceberg.tables.auto-create-enabled': 'true', 'iceberg.catalog.type': 'rest', 'iceberg.catalog.uri': uri,
    'iceberg.control.commit.interval-ms': '3000',
    'key.converter': 'org.apache.kafka.connect.storage.StringConverter', 'value.converter': 'org.apache.kafka.connect.json.JsonConverter', 'value.converter.schemas.enable': 'false',
  };
  await rest.createConnector(name, config);
  await committed(rest, name, 30);

  const dry = await runCli(['--url', url, 'rewind', name, '--to-offset', '10', '--partition', `${topic}:0`, '--bootstrap', sandbox.bootstrap, '--dry-run']);
  assert.equal(dry.status, 0, dry.stderr);
  assert.match(dry.stderr, new RegExp(`appends to Iceberg tables \\(${id}\\.events\\), which have no dedup or upsert: 20 record\\(s\\) will be appended again as new rows`));
  const copy = await runCli(['--url', url, 'copy', name, '--as', `${name}-green`, '--dry-run']);
  assert.equal(copy.status, 2, copy.stderr);
  assert.match(copy.stderr, /the copy would append into the same tables .*--set iceberg\.tables=<tables>/);
  const other = await runCli(['--url', url, 'copy', name, '--as', `${name}-green`, '--dry-run', '--set', `iceberg.tables=${id}.events_green`]);
  assert.equal(other.status, 0, other.stderr);
});
