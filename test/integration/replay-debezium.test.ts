// `offsetctl replay` on the plugins sandbox (issue 34): a real Debezium PostgreSQL source with a
// Kafka signal topic re-reads exactly the rows of `--where` through an incremental snapshot,
// counted in the table's topic; a dry run sends nothing; a connector that is not Debezium, one
// with no Kafka signal channel and a table it does not capture are refused (exit 2) before
// anything is sent. Skipped (saying how to start such a sandbox) without the Debezium plugin and
// the CDC PostgreSQL; OFFSETCTL_REQUIRE_PLUGINS=1 makes that a failure.
// Real parts: the plugins sandbox (Kafka, Connect, Debezium/JDBC/Iceberg, a CDC PostgreSQL), a loopback HTTP server, spawns the CLI.
import * as assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { Admin } from '@platformatic/kafka';
import { runCli } from '../support/cli.js';
import { ConnectRest, uniqueName, waitFor } from '../support/connect.js';
import { cdcDatabase, changeEvents, debeziumConfig } from '../support/debezium.js';
import { requirePlugins, type PluginSandbox } from '../support/plugin-sandbox.js';
const JSON_CONVERTERS = {
  'key.converter': 'org.apache.kafka.connect.json.JsonConverter', 'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
  'key.converter.schemas.enable': 'false', 'value.converter.schemas.enable': 'false',
};

interface Source {
  name: string;
  id: string;
  url: string;
  rest: ConnectRest;
  signalTopic: string;
  tableTopic: string;
  bootstrap: string;
  config: Record<string, string>;
  /** --source-db: the sandbox's loopback superuser, no password. */
  sourceDb: string;
}

/**
 * A database with `public.orders` (ids 1..40) and its signal table, and a Debezium source with a
 * Kafka signal topic (Debezium's watermarks go to the signal table, read back through the source
 * channel: with kafka alone no row ever came), RUNNING after its
 * initial snapshot of the 40 rows.
 */
async function debeziumSource(t: TestContext, sandbox: PluginSandbox): Promise<Source> {
  const url = sandbox.connect[0]!;
  const rest = new ConnectRest(url);
  let name = '';
  const db = await cdcDatabase(t, sandbox, 'rpl', [
    'CREATE TABLE orders (id int PRIMARY KEY, note text, created_at timestamptz NOT NULL DEFAULT now())',
    'CREATE TABLE dbz_signal (id varchar(64) PRIMARY KEY, type varchar(32) NOT NULL, data varchar(2048))',
    `INSERT INTO orders SELECT g, 'order ' || g FROM generate_series(1, 40) g`,
  ], { cleanup: () => rest.deleteConnector(name), topics: (id) => [`${id}-signals`, `${id}.public.orders`, `${id}.public.dbz_signal`] });
  name = db.name;
  const { id, sourceDb } = db;
  const signalTopic = `${id}-signals`;
  const config = debeziumConfig(sandbox.cdc!, id, {
    'database.password': 'unused', 'publication.autocreate.mode': 'filtered', 'table.include.list': 'public.orders,public.dbz_signal', 'snapshot.mode': 'initial',
    'signal.enabled.channels': 'kafka,source', 'signal.kafka.topic': signalTopic, 'signal.kafka.bootstrap.servers': sandbox.bootstrap,
    'signal.data.collection': 'public.dbz_signal', ...JSON_CONVERTERS,
  });
  await rest.createConnector(name, config);
  await waitFor(`${name} RUNNING with a task`, async () => {
    const s = await rest.status(name);
    return s.connector.state === 'RUNNING' && s.tasks.length === 1 && s.tasks[0]!.state === 'RUNNING';
  }, 120_000);
  const tableTopic = `${id}.public.orders`;
  // The initial snapshot: every row once.
  await waitFor('the initial snapshot of 40 rows on the topic', async () => (await readOps(sandbox.bootstrap, tableTopic)).length >= 40, 120_000);
  return { name, id, url, rest, signalTopic, tableTopic, bootstrap: sandbox.bootstrap, config, sourceDb };
}

const readOps = changeEvents;

async function topicEnd(bootstrap: string, topic: string): Promise<number> {
  const admin = new Admin({ clientId: 'replay-test', bootstrapBrokers: [bootstrap] });
  try {
    const answer = await admin.listOffsets({ topics: [{ name: topic, partitions: [{ partitionIndex: 0, timestamp: -1n }] }] });
    return Number(answer[0]?.partitions[0]?.offset ?? 0);
  } catch {
    return 0; // not created yet
  } finally {
    await admin.close();
  }
}

test(
  'replay --where "id > 25": a dry run sends nothing; the real one delivers exactly ids 26-40 once more '
  + '(op=r), journaled and audited', { timeout: 600_000 }, async (t) => {
  const sandbox = await requirePlugins(t, ['debezium-postgres'], { cdc: true });
  if (!sandbox) return;
  const s = await debeziumSource(t, sandbox);
  const before = await readOps(s.bootstrap, s.tableTopic);
  assert.deepEqual(before.filter(([op]) => op === 'r').map(([, id]) => id).sort((a, b) => a - b), Array.from({ length: 40 }, (_, i) => i + 1));

  const dry = await runCli(['--url', s.url, 'replay', s.name, '--table', 'public.orders', '--where', 'id > 25', '--dry-run', '--source-db', s.sourceDb]);
  assert.equal(dry.status, 0, dry.stderr);
  assert.match(dry.stdout, /15 row\(s\) of public.orders match now \(counted on postgres:\/\/postgres@/);
  const typo = await runCli(['--url', s.url, 'replay', s.name, '--table', 'public.orders', '--where', 'idd > 25', '--dry-run', '--source-db', s.sourceDb]);
  assert.equal(typo.status, 2, typo.stderr);
  assert.match(typo.stderr, /counting the rows of public.orders where idd > 25 on .* failed: column "idd" does not exist .*fix --where/);
  assert.match(dry.stdout, /incremental snapshot of public.orders where id > 25/);
  assert.match(dry.stdout, new RegExp(`execute-snapshot sent to the Kafka signal topic ${s.signalTopic}, keyed by topic.prefix ${s.id}`));
  assert.match(dry.stdout, new RegExp(`rows go to ${s.tableTopic.replace(/\./g, '\\.')}`));
  assert.match(dry.stdout, /no offset is changed, so no snapshot of offsets is taken/);
  assert.match(dry.stdout, /dry run: .*nothing was sent/);
  // rewind --to-time on a column is the same replay (rows at or after the time), here as a dry run.
  const byTime = await runCli(['--url', s.url, 'rewind', s.name, '--to-time', '2026-12-04T00:00:00Z', '--time-column', 'created_at',
    '--table', 'public.orders', '--dry-run']);
  assert.equal(byTime.status, 0, byTime.stderr);
  assert.match(byTime.stdout, /incremental snapshot of public.orders where created_at >= '2026-12-04T00:00:00Z'/);
  assert.equal(await topicEnd(s.bootstrap, s.signalTopic), 0, 'the dry runs sent no signal');

  const real = await runCli(['--url', s.url, 'replay', s.name, '--table', 'public.orders', '--where', 'id > 25', '--yes', '-o', 'json'],
    { timeoutMs: 300_000 });
  assert.equal(real.status, 0, `${real.stdout}\n${real.stderr}`);
  const outcome = JSON.parse(real.stdout) as { status: string; rowsSeen: number; runId: string; message: string };
  assert.equal(outcome.status, 'succeeded');
  assert.equal(outcome.rowsSeen, 15, outcome.message);
  assert.equal(await topicEnd(s.bootstrap, s.signalTopic), 1, 'one signal was sent');

  // Counted in the topic by a consumer of its own: ids 26-40 once more as op=r, nothing else read again.
  const after = await readOps(s.bootstrap, s.tableTopic);
  const replayed = after.slice(before.length);
  assert.deepEqual(replayed.map(([op]) => op), new Array(15).fill('r'), JSON.stringify(replayed));
  assert.deepEqual(replayed.map(([, id]) => id).sort((a, b) => a - b), Array.from({ length: 15 }, (_, i) => i + 26));
  // The offsets were not touched, and the connector kept streaming: a new row arrives as op=c.
  const status = await s.rest.status(s.name);
  assert.equal(status.connector.state, 'RUNNING');

  // Journaled as a run, and audited (start and outcome).
  const runs = await runCli(['--url', s.url, 'runs', '--connector', s.name, '-o', 'json']);
  const list = JSON.parse(runs.stdout) as Array<{ id: string; operation: string; status: string }>;
  assert.deepEqual(list.map((r) => [r.operation, r.status]), [['replay', 'succeeded']]);
  const shown = await runCli(['--url', s.url, 'runs', 'show', outcome.runId, '-o', 'json']);
  assert.match(shown.stdout, /sendSignal/);
  assert.match(shown.stdout, /receiveRow/);
  const audit = await runCli(['--url', s.url, 'audit', '--connector', s.name, '-o', 'json']);
  assert.equal(audit.status, 0, audit.stderr);
  const entries = audit.stdout.trim().split('\n').map((line) => JSON.parse(line) as { action: string; outcome: string });
  assert.deepEqual(entries.map((e) => `${e.action}:${e.outcome}`).sort(), ['replay:refused', 'replay:started', 'replay:succeeded'],
    'the refused --where typo, then the run');
});

test(
  'replay is refused (exit 2, nothing sent) for a connector that is not Debezium, one without a Kafka signal '
  + 'channel, and a table it does not capture', { timeout: 300_000 }, async (t) => {
  const sandbox = await requirePlugins(t, ['debezium-postgres'], { cdc: true });
  if (!sandbox) return;
  const cdc = sandbox.cdc!;
  const url = sandbox.connect[0]!;
  const rest = new ConnectRest(url);
  const id = uniqueName('rplno').replace(/-/g, '_');
  // Created STOPPED: no task, so no slot is made; the refusals come from the configuration.
  const tableOnly = `${id}-table`.replace(/_/g, '-');
  const file = `${id}-file`.replace(/_/g, '-');
  const debezium = debeziumConfig(cdc, id, { 'database.dbname': 'postgres', 'signal.data.collection': 'public.dbz_signal' });
  await rest.createConnector(tableOnly, debezium, 'STOPPED');
  await rest.createConnector(file, { 'connector.class': 'org.apache.kafka.connect.file.FileStreamSourceConnector', file: '/tmp/none', topic: id }, 'STOPPED');
  t.after(async () => {
    await rest.deleteConnector(tableOnly).catch(() => undefined);
    await rest.deleteConnector(file).catch(() => undefined);
  });

  const withKafka = { ...debezium, 'signal.enabled.channels': 'kafka,source', 'signal.kafka.topic': `${id}-signals` };
  const notDebezium = await runCli(['--url', url, 'replay', file, '--table', 'public.orders', '--yes']);
  assert.equal(notDebezium.status, 2, notDebezium.stderr);
  assert.match(notDebezium.stderr, /not a Debezium source: use `offsetctl rewind`/);
  const rewindByTime = await runCli(['--url', url, 'rewind', file, '--to-time', '-1h', '--time-column', 'created_at', '--table', 'public.orders', '--yes']);
  assert.equal(rewindByTime.status, 2, rewindByTime.stderr);
  assert.match(rewindByTime.stderr, /not a Debezium source/);

  const signalTable = await runCli(['--url', url, 'replay', tableOnly, '--table', 'public.orders', '--where', 'id > 1', '--yes']);
  assert.equal(signalTable.status, 2, signalTable.stderr);
  assert.match(signalTable.stderr, /takes signals only from its signal table public.dbz_signal \(channel source\): .*write /);
  assert.match(signalTable.stderr, /add kafka to signal.enabled.channels and set signal.kafka.topic/);

  await rest.request('PUT', `/connectors/${tableOnly}/config`, withKafka);
  const notCaptured = await runCli(['--url', url, 'replay', tableOnly, '--table', 'public.customers', '--yes']);
  assert.equal(notCaptured.status, 2, notCaptured.stderr);
  assert.match(notCaptured.stderr, /does not capture public.customers: it is not in table.include.list \(public.orders\)/);

  await rest.request('PUT', `/connectors/${tableOnly}/config`, { ...debezium, 'signal.enabled.channels': 'kafka', 'signal.kafka.topic': `${id}-signals` });
  const noWatermarks = await runCli(['--url', url, 'replay', tableOnly, '--table', 'public.orders', '--yes']);
  assert.equal(noWatermarks.status, 2, noWatermarks.stderr);
  assert.match(noWatermarks.stderr, /without source in signal.enabled.channels .* never delivers a row/);

  await rest.request('PUT', `/connectors/${tableOnly}/config`, withKafka);
  const stopped = await runCli(['--url', url, 'replay', tableOnly, '--table', 'public.orders', '--yes']);
  assert.equal(stopped.status, 2, stopped.stderr);
  assert.match(stopped.stderr, /is STOPPED: only a running task reads signals/);

  const badTable = await runCli(['--url', url, 'replay', tableOnly, '--table', 'orders', '--yes']);
  assert.equal(badTable.status, 2);
  assert.match(badTable.stderr, /--table "orders": expected <schema>.<table>/);
  assert.equal(await topicEnd(sandbox.bootstrap, `${id}-signals`), 0, 'no signal was sent');
});
