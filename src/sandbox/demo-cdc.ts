// `offsetctl sandbox demo --cdc`: a Debezium table replayed, on a sandbox started with
// `--plugin debezium-postgres --cdc-postgres`. It makes a database with a table and Debezium's
// signal table in the CDC PostgreSQL, a Debezium source with a Kafka signal topic, inserts rows
// (streamed as op=c), then runs `offsetctl replay … --where "id > N"` exactly as an operator
// would, and counts in the table's topic what the replay delivered: the rows above N, once each,
// as op=r. Everything it made is removed at the end (connector, slot, database, topics stay).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Consumer, stringDeserializers } from '@platformatic/kafka';
import { ConnectRest } from './connect-rest.js';
import { SandboxError } from './errors.js';
import { projectRoot, resolveSandboxDir } from './layout.js';
import { findPgBin } from './postgres-server.js';
import { sandboxStatus } from './status.js';

export interface CdcDemoOptions {
  dir?: string;
  write: (text: string) => void;
  /** Rows inserted (default 40) and the replay's lower bound (default 25: `id > 25`). */
  rows?: number;
  above?: number;
}

export interface CdcDemoResult {
  connector: string;
  topic: string;
  /** Ids delivered again as op=r by the replay, in topic order. */
  replayedIds: number[];
  expectedIds: number[];
}

const DEBEZIUM = 'io.debezium.connector.postgresql.PostgresConnector';

export async function runCdcDemo(options: CdcDemoOptions): Promise<CdcDemoResult> {
  const { write } = options;
  const dir = resolveSandboxDir(options.dir);
  const rows = options.rows ?? 40;
  const above = options.above ?? 25;
  const status = await sandboxStatus({ dir });
  const start = '`offsetctl sandbox up --plugin debezium-postgres --cdc-postgres`';
  if (!status.running || !status.bootstrap || !status.connect[0]) {
    throw new SandboxError('E_SANDBOX_NOT_RUNNING', `the sandbox in ${dir} is not running: start it with ${start}, then run the demo again`);
  }
  if (!status.plugins.some((p) => p.name === 'debezium-postgres') || !status.cdc) {
    throw new SandboxError('E_SANDBOX_NOT_RUNNING', `the sandbox in ${dir} runs without ${status.cdc ? 'the Debezium plugin' : 'the CDC PostgreSQL'}: `
      + `restart it with ${start} (its workers restart one at a time), then run the demo again`);
  }
  const cdc = status.cdc;
  const bootstrap = status.bootstrap;
  const worker = status.connect[0];
  const psql = psqlOf(cdc.url);
  const id = `demo_cdc_${Date.now().toString(36)}`;
  const name = id.replace(/_/g, '-');
  const topic = `${id}.public.orders`;
  const rest = new ConnectRest(worker);
  write(`Sandbox: broker ${bootstrap}, Connect ${worker}, CDC PostgreSQL ${cdc.url}\n\n`);
  await psql('postgres', `CREATE DATABASE ${id}`);
  try {
    await psql(id, 'CREATE TABLE orders (id int PRIMARY KEY, note text); '
      + 'CREATE TABLE dbz_signal (id varchar(64) PRIMARY KEY, type varchar(32) NOT NULL, data varchar(2048))');
    write(`1. Database ${id}: table public.orders, and public.dbz_signal for Debezium's watermarks\n`);
    await rest.createConnector(name, {
      'connector.class': DEBEZIUM, 'tasks.max': '1', 'database.hostname': cdc.host, 'database.port': String(cdc.port), 'database.user': cdc.user,
      'database.password': 'unused', 'database.dbname': id, 'topic.prefix': id, 'slot.name': id, 'publication.name': id, 'plugin.name': 'pgoutput',
      'publication.autocreate.mode': 'filtered', 'table.include.list': 'public.orders,public.dbz_signal', 'snapshot.mode': 'initial',
      'signal.enabled.channels': 'kafka,source', 'signal.kafka.topic': `${id}-signals`, 'signal.kafka.bootstrap.servers': bootstrap,
      'signal.data.collection': 'public.dbz_signal',
      'key.converter': 'org.apache.kafka.connect.json.JsonConverter', 'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
      'key.converter.schemas.enable': 'false', 'value.converter.schemas.enable': 'false',
    });
    await rest.waitForRunning(name, 1, 120_000);
    write(`2. Debezium source "${name}" runs: slot ${id}, topic.prefix ${id}, Kafka signal topic ${id}-signals\n`);
    await psql(id, `INSERT INTO orders SELECT g, 'order ' || g FROM generate_series(1, ${rows}) g`);
    const streamed = await waitForEvents(bootstrap, topic, (events) => events.filter(([op]) => op === 'c').length >= rows);
    write(`3. Inserted ids 1-${rows}: ${streamed.filter(([op]) => op === 'c').length} change events (op=c) on ${topic}\n`);
    const args = ['replay', name, '--table', 'public.orders', '--where', `id > ${above}`, '--yes', '--url', worker, '--state-dir', join(dir, 'demo', 'state')];
    const shown = args.map((a) => (a.includes(' ') ? `"${a}"` : a)).join(' ');
    write(`4. Replaying the rows with id > ${above} (an incremental snapshot signal; no offset changes):\n   $ offsetctl ${shown}\n`);
    const code = await runCommand(args);
    if (code !== 0) {
      const why = `the sandbox is running, but the demo's \`offsetctl replay\` did not succeed (exit ${code}); see its output above`;
      throw new SandboxError('E_SANDBOX_DEMO', why);
    }
    const after = await readEvents(bootstrap, topic, 3000);
    const replayedIds = after.slice(streamed.length).filter(([op]) => op === 'r').map(([, n]) => n);
    const expectedIds = Array.from({ length: rows - above }, (_, i) => above + 1 + i);
    const exact = [...replayedIds].sort((a, b) => a - b).join(',') === expectedIds.join(',');
    write(`5. Counted in ${topic}: ${replayedIds.length} row(s) read again (op=r), ids ${span(replayedIds)}`
      + `${exact ? ` — exactly the ${expectedIds.length} rows with id > ${above}, once each` : ` — expected ids ${span(expectedIds)}`}\n\n`);
    if (!exact) throw new SandboxError('E_SANDBOX_DEMO', `the replay delivered ids ${span(replayedIds)}, not ${span(expectedIds)}`);
    return { connector: name, topic, replayedIds, expectedIds };
  } finally {
    // The sandbox may be shared with tests: leave no connector, slot or database behind.
    await rest.deleteConnector(name).catch(() => undefined);
    const active = `SELECT count(*) FROM pg_replication_slots WHERE slot_name = '${id}' AND active`;
    await waitUntil(async () => (await psql('postgres', active)).trim() === '0', 60_000);
    await psql('postgres', `SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '${id}'`).catch(() => '');
    await psql('postgres', `DROP DATABASE IF EXISTS ${id} WITH (FORCE)`).catch(() => '');
  }
}

function span(ids: number[]): string {
  if (ids.length === 0) return '(none)';
  const sorted = [...ids].sort((a, b) => a - b);
  return `${sorted[0]}-${sorted[sorted.length - 1]}`;
}

/** psql against a database of the CDC server (its loopback superuser needs no password); resolves with the output. */
function psqlOf(url: string): (database: string, sql: string) => Promise<string> {
  const bin = findPgBin();
  if (!bin) throw new SandboxError('E_SANDBOX_PREREQ', 'psql was not found (PostgreSQL binaries under /usr/lib/postgresql/<major>/bin, or OFFSETCTL_PG_BIN)');
  return (database, sql) => new Promise((resolve, reject) => {
    const target = url.replace(/\/[^/]*$/, `/${database}`);
    const child = spawn(join(bin, 'psql'), [target, '-v', 'ON_ERROR_STOP=1', '-qAt', '-c', sql], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new SandboxError('E_SANDBOX_DEMO', `psql on ${database}: ${err.trim()}`))));
  });
}

/** Every change event on the topic from its start, [op, id], until none came for quietMs (the plugin tests read them too). */
export async function readEvents(bootstrap: string, topic: string, quietMs: number): Promise<Array<[string, number]>> {
  const consumer = new Consumer({
    clientId: 'offsetctl-demo', groupId: `offsetctl-demo-${Date.now()}`, bootstrapBrokers: [bootstrap], deserializers: stringDeserializers,
    autocommit: false, maxWaitTime: 300,
  });
  const out: Array<[string, number]> = [];
  try {
    const stream = await consumer.consume({ topics: [topic], mode: 'earliest' });
    let timer = setTimeout(() => stream.close(() => undefined), quietMs);
    try {
      for await (const message of stream) {
        clearTimeout(timer);
        timer = setTimeout(() => stream.close(() => undefined), quietMs);
        if (message.value === null || message.value === undefined) continue;
        const v = JSON.parse(String(message.value)) as { op: string; after?: { id: number }; before?: { id: number } };
        out.push([v.op, (v.after ?? v.before)?.id ?? -1]);
      }
    } finally {
      clearTimeout(timer);
      await new Promise<void>((r) => stream.close(() => r()));
    }
  } finally {
    await consumer.close(true);
  }
  return out;
}

async function waitForEvents(bootstrap: string, topic: string, done: (e: Array<[string, number]>) => boolean): Promise<Array<[string, number]>> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const events = await readEvents(bootstrap, topic, 2000).catch(() => []);
    if (done(events)) return events;
    if (Date.now() > deadline) {
      throw new SandboxError('E_SANDBOX_DEMO', `the inserted rows did not reach ${topic} within 120 s (${events.length} event(s) seen)`);
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** The operator command as a user would run it, its output going straight to the terminal. */
function runCommand(args: string[]): Promise<number> {
  const root = projectRoot();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, 'bin', 'offsetctl'), ...args], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('error', reject);
    child.on('close', (code) => resolve(code ?? 1));
  });
}
