// `offsetctl replay` planned: what operators mean by "rewind" for a Debezium source. Moving a
// Debezium PostgreSQL offset back replays almost nothing (the slot forwards to its
// confirmed_flush_lsn, docs/connectors.md); Debezium's own way to read rows again is an
// incremental snapshot signal (execute-snapshot, type incremental, with additional-conditions),
// which changes no offset and lets streaming go on. Planning only reads the connector: it is
// refused (OpsError, exit 2) when the connector is not a Debezium source, has no Kafka signal
// channel (the properties to set are named), or does not capture the table.
import { clusterIdentity, WorkerRoot } from '../cluster/index.js';
import { getConnectorInfo, type ConnectorInfo } from '../connect/index.js';
import { OpsError } from '../errors.js';
import type { OpsContext } from '../context.js';

export interface ReplayRequest {
  connector: string;
  /** `schema.table`, as Debezium names a data collection of PostgreSQL. */
  table: string;
  /** An SQL condition on the table's columns (`id > 25`), Debezium's additional-conditions filter. */
  where?: string;
  /** `--to-time <t> --time-column <col>`: rows whose column is at or after the time (`<col> >= '<t>'`). */
  since?: { column: string; time: string };
}

export interface ReplayPlan {
  operation: 'replay';
  connector: string;
  connectorClass: string;
  clusterUrl: string;
  clusterKey: string;
  table: string;
  /** The filter Debezium applies (absent: every row of the table). */
  filter?: string;
  /** The connector's signal.kafka.topic. */
  signalTopic: string;
  /** Its topic.prefix: Debezium reads only signals keyed by it. */
  signalKey: string;
  /** Where the rows go: <topic.prefix>.<schema>.<table>. */
  tableTopic: string;
  /** The connector's signal.kafka.bootstrap.servers (the face may name others). */
  signalBootstrap?: string[];
  /** The execute-snapshot signal as it is sent. */
  signal: { type: 'execute-snapshot'; data: Record<string, unknown> };
  /** What the dry run says, one line each. */
  facts: string[];
  warnings: string[];
}

const DEBEZIUM_PREFIX = 'io.debezium.connector.';
const POSTGRES = 'io.debezium.connector.postgresql.PostgresConnector';

export async function planReplay(ctx: Pick<OpsContext, 'url' | 'http'>, req: ReplayRequest): Promise<ReplayPlan> {
  const table = checkTable(req.table);
  const filter = filterOf(req);
  const info = await getConnectorInfo(ctx.http, ctx.url, req.connector);
  const cls = info.config['connector.class']?.trim() ?? '';
  if (info.type !== 'source' || !cls.startsWith(DEBEZIUM_PREFIX)) {
    throw new OpsError('E_PREFLIGHT',
      `replay re-reads rows through a Debezium source's incremental snapshot; ${info.name} is a ${info.type} `
      + `connector of class ${cls || '(none)'}, not a Debezium source: use \`offsetctl rewind\` to move its offsets; `
      + `nothing was changed`, { field: 'connector' });
  }
  const signal = signalChannel(info);
  if (cls === POSTGRES) watermarks(info);
  const prefix = info.config['topic.prefix']?.trim() ?? '';
  if (prefix === '') throw new OpsError('E_PREFLIGHT',
    `${info.name} has no topic.prefix: Debezium keys its signals and names its topics by it; nothing was `
    + `changed`, { field: 'connector' });
  checkCaptured(info, table);
  if (info.state !== 'RUNNING') {
    throw new OpsError('E_PREFLIGHT',
      `${info.name} is ${info.state}: only a running task reads signals and re-reads rows; resume it first `
      + `(\`offsetctl resume ${info.name}\`); nothing was changed`, { field: 'connector' });
  }
  const [schema, name] = table;
  const collection = `${schema}.${name}`;
  const data: Record<string, unknown> = {
    'data-collections': [collection], type: 'incremental',
    ...(filter ? { 'additional-conditions': [{ 'data-collection': collection, filter }] } : {}),
  };
  const tableTopic = `${prefix}.${collection}`;
  const cluster = await clusterIdentity(new WorkerRoot(ctx.http, ctx.url));
  const warnings: string[] = [];
  if ((info.config['transforms'] ?? '').trim() !== '') {
    warnings.push(
      `${info.name} has transforms (${info.config['transforms']}): if one renames topics, the rows go elsewhere `
      + `than ${tableTopic} and the check that they arrived will time out`);
  }
  if (!filter) warnings.push(`no --where: every row of ${collection} is read again`);
  const chunk = info.config['incremental.snapshot.chunk.size']?.trim() || '1024';
  const facts = [
    `Debezium incremental snapshot of ${collection}${filter ? ` where ${filter}` : ' (every row)'}: rows `
      + `are read again as op=r events, in chunks of ${chunk} (incremental.snapshot.chunk.size), while streaming `
      + `goes on`,
    `signal: execute-snapshot sent to the Kafka signal topic ${signal.topic}, keyed by topic.prefix ${prefix}`,
    `rows go to ${tableTopic}; every consumer of it (sinks included) gets them again`,
    'no offset is changed, so no snapshot of offsets is taken (there is nothing to roll back: rows already sent stay sent)',
  ];
  return {
    operation: 'replay', connector: info.name, connectorClass: cls, clusterUrl: ctx.url, clusterKey: cluster.key,
    table: collection, ...(filter ? { filter } : {}), signalTopic: signal.topic, signalKey: prefix, tableTopic,
    ...(signal.bootstrap ? { signalBootstrap: signal.bootstrap } : {}),
    signal: { type: 'execute-snapshot', data }, facts, warnings,
  };
}

function checkTable(table: string): [string, string] {
  const parts = table.trim().split('.');
  if (parts.length !== 2 || parts.some((p) => !/^[A-Za-z_][A-Za-z0-9_$]*$/.test(p))) {
    throw new OpsError('E_USAGE',
      `--table ${JSON.stringify(table)}: expected <schema>.<table> (e.g. public.orders), as Debezium names `
      + `a PostgreSQL table`, { field: 'table' });
  }
  return [parts[0]!, parts[1]!];
}

function filterOf(req: ReplayRequest): string | undefined {
  const parts: string[] = [];
  if (req.where !== undefined) {
    const where = req.where.trim();
    if (where === '') throw new OpsError('E_USAGE',
      '--where is empty: give an SQL condition on the table\'s columns (e.g. "id > 25"), or leave it out to '
      + 'read every row', { field: 'where' });
    // One condition, not statements: Debezium appends it to its own SELECT.
    if (where.includes(';')) throw new OpsError('E_USAGE',
      `--where ${JSON.stringify(where)}: one SQL condition without ";" (Debezium adds it to its own SELECT `
      + `... WHERE)`, { field: 'where' });
    parts.push(where);
  }
  if (req.since) {
    if (!/^[A-Za-z_][A-Za-z0-9_$]*$/.test(req.since.column)) {
      throw new OpsError('E_USAGE', `--time-column ${JSON.stringify(req.since.column)}: expected a column name`, { field: 'time-column' });
    }
    // Quoted as an SQL literal: only the characters of a date and time are taken.
    if (!/^[0-9][0-9T:.\- +Z]*$/.test(req.since.time)) {
      const hint = 'with --time-column give a date and time (2026-12-04T06:00:00Z)';
      throw new OpsError('E_USAGE', `--to-time ${JSON.stringify(req.since.time)}: ${hint}`, { field: 'to-time' });
    }
    parts.push(`${req.since.column} >= '${req.since.time}'`);
  }
  return parts.length === 0 ? undefined : parts.length === 1 ? parts[0] : parts.map((p) => `(${p})`).join(' AND ');
}

/** The connector's Kafka signal channel, or a refusal naming the properties to set. */
function signalChannel(info: ConnectorInfo): { topic: string; bootstrap?: string[] } {
  const channels = (info.config['signal.enabled.channels'] ?? 'source').split(',').map((c) => c.trim().toLowerCase()).filter(Boolean);
  const topic = info.config['signal.kafka.topic']?.trim() ?? '';
  if (channels.includes('kafka') && topic !== '') {
    const bootstrap = info.config['signal.kafka.bootstrap.servers']?.split(',').map((s) => s.trim()).filter(Boolean);
    return { topic, ...(bootstrap && bootstrap.length > 0 ? { bootstrap } : {}) };
  }
  const table = info.config['signal.data.collection']?.trim() ?? '';
  const set = 'add kafka to signal.enabled.channels and set signal.kafka.topic (and signal.kafka.bootstrap.servers) in its configuration';
  if (channels.includes('kafka')) {
    throw new OpsError('E_PREFLIGHT',
      `${info.name} enables the kafka signal channel but has no signal.kafka.topic: set signal.kafka.topic `
      + `(and signal.kafka.bootstrap.servers); nothing was changed`, { field: 'connector' });
  }
  if (channels.includes('source') && table !== '') {
    throw new OpsError('E_PREFLIGHT',
      `${info.name} takes signals only from its signal table ${table} (channel source): a signal there is an `
      + `INSERT, which needs a login that may write to the source database, and offsetctl takes only read-only `
      + `logins to it; ${set} (the signal table stays for Debezium's watermarks); nothing was changed`, { field: 'connector' });
  }
  throw new OpsError('E_PREFLIGHT',
    `${info.name} has no signal channel offsetctl can use (signal.enabled.channels=${channels.join(',') || '(empty)'}, `
    + `no signal.kafka.topic): ${set}; nothing was changed`, { field: 'connector' });
}

/**
 * Debezium PostgreSQL opens and closes each chunk's window with INSERTs into its signal table and
 * sees them in the stream through the `source` channel: measured on 3.6.1, with `kafka` alone the
 * signal was taken, the window opened, and no row ever came. So both are needed besides kafka.
 */
function watermarks(info: ConnectorInfo): void {
  const channels = (info.config['signal.enabled.channels'] ?? 'source').split(',').map((c) => c.trim().toLowerCase());
  const table = info.config['signal.data.collection']?.trim() ?? '';
  if (table !== '' && channels.includes('source')) return;
  const missing = [table === '' ? 'signal.data.collection (a signal table: id varchar(42) primary key, type varchar(32) not null, data varchar(2048))' : '',
    channels.includes('source') ? '' : 'source in signal.enabled.channels (e.g. kafka,source)'].filter(Boolean).join(' and ');
  throw new OpsError('E_PREFLIGHT',
    `${info.name}: Debezium PostgreSQL writes an incremental snapshot's watermarks to its signal table and `
    + `reads them back through the source channel; without ${missing} the snapshot opens its window and never `
    + `delivers a row (measured with Debezium 3.6.1). Set it, with the table in the publication; offsetctl `
    + `still sends the signal itself through the Kafka topic; nothing was changed`, { field: 'connector' });
}

/** Refuses a table the connector does not capture (its include/exclude lists are regular expressions over `schema.table`). */
function checkCaptured(info: ConnectorInfo, [schema, table]: [string, string]): void {
  const full = `${schema}.${table}`;
  const list = (key: string): RegExp[] | undefined => {
    const raw = info.config[key]?.trim();
    if (!raw) return undefined;
    return raw.split(',').map((p) => p.trim()).filter(Boolean).map((p) => {
      try {
        return new RegExp(`^(?:${p})$`, 'i');
      } catch {
        return new RegExp(`^${p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'i');
      }
    });
  };
  const why = (text: string): never => {
    throw new OpsError('E_PREFLIGHT',
      `${info.name} does not capture ${full}: ${text}; a snapshot signal for it would read nothing. Pick a `
      + `table it captures; nothing was changed`, { field: 'table' });
  };
  const tables = list('table.include.list');
  if (tables && !tables.some((r) => r.test(full))) why(`it is not in table.include.list (${info.config['table.include.list']})`);
  if (list('table.exclude.list')?.some((r) => r.test(full))) why(`table.exclude.list (${info.config['table.exclude.list']}) leaves it out`);
  const schemas = list('schema.include.list');
  if (schemas && !schemas.some((r) => r.test(schema))) why(`its schema is not in schema.include.list (${info.config['schema.include.list']})`);
  if (list('schema.exclude.list')?.some((r) => r.test(schema))) why(`schema.exclude.list (${info.config['schema.exclude.list']}) leaves its schema out`);
}
