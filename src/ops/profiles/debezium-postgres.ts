// Debezium PostgreSQL (io.debezium.connector.postgresql.PostgresConnector). Its offsets
// (`{"server": <topic.prefix>} → {"lsn", "lsn_proc", "lsn_commit", "txId", "ts_usec"}`) are half of
// its position; the other half is the replication slot on the source database, which decides what
// a changed offset really does (measured with Debezium 3.6.1 on PostgreSQL 15, docs/connectors.md):
// below restart_lsn the task fails or re-snapshots (snapshot.mode), below confirmed_flush_lsn
// PostgreSQL forwards silently and the rows between never come back, beyond the WAL or the current
// offset the rows between are lost for good. Only confirmed_flush_lsn ≤ target ≤ current replays.
import { OpsError } from '../errors.js';
import { partitionKey, type OffsetEntry } from '../offsets/index.js';
import { classifyTarget, debeziumPosition, parseLsn, describePosition, pgLsn, showLsn, type DebeziumPosition, type TargetClass } from './lsn.js';
import type { ConnectorProfile, ProfileCheck, ProfileReport, SourceIdentity } from './profile.js';
import { readSourceDb, type SourceDbFacts } from './source-db.js';

export const DEBEZIUM_POSTGRES = 'io.debezium.connector.postgresql.PostgresConnector';

/** The options that change what an offset change does, with Debezium's defaults. */
export interface DebeziumOptions {
  slotName: string;
  publication: string;
  prefix: string;
  snapshotMode: string;
  mismatch: string;
  flushLsnSource: boolean;
}

export function debeziumOptions(config: Record<string, string>): DebeziumOptions {
  return {
    slotName: config['slot.name']?.trim() || 'debezium',
    publication: config['publication.name']?.trim() || 'dbz_publication',
    prefix: config['topic.prefix']?.trim() ?? '',
    snapshotMode: (config['snapshot.mode']?.trim() || 'initial').toLowerCase(),
    mismatch: (config['offset.mismatch.strategy']?.trim() || 'no_validation').toLowerCase(),
    flushLsnSource: (config['flush.lsn.source']?.trim().toLowerCase() ?? 'true') !== 'false',
  };
}

/** What a reset (no offsets) makes Debezium do, by snapshot.mode. */
export function resetOutcome(snapshotMode: string): string {
  switch (snapshotMode) {
    case 'initial': case 'always': case 'when_needed': case 'initial_only':
      return `snapshot.mode=${snapshotMode}: with no offsets Debezium snapshots every captured table again: every row is sent again ` +
        `(op=r)${snapshotMode === 'initial_only' ? ', then it stops streaming' : ', then it streams from the slot'}`;
    case 'no_data': case 'never':
      return `snapshot.mode=${snapshotMode}: with no offsets Debezium takes no snapshot and streams from the slot's confirmed_flush_lsn: nothing is sent ` +
        `again but the last unconfirmed transaction`;
    default:
      return `snapshot.mode=${snapshotMode}: what Debezium does with no offsets depends on that mode (offsetctl knows initial, always, when_needed, ` +
        `initial_only, no_data, never): read its documentation before resetting`;
  }
}

/** Why a target LSN is refused (undefined: it replays). */
export interface WindowFacts {
  restart: string;
  confirmed: string;
  wal: string;
  current?: string;
  snapshotMode: string;
}

export function refusalFor(cls: TargetClass, target: string, facts: WindowFacts): string | undefined {
  switch (cls) {
    case 'replays':
      return undefined;
    case 'below-restart': {
      const outcome = facts.snapshotMode === 'when_needed'
        ? 'with snapshot.mode=when_needed Debezium silently re-snapshots every captured table instead of replaying (every row again as op=r)'
        : `with snapshot.mode=${facts.snapshotMode} the task fails ("no longer available on the server")`;
      return `target ${target} is below the slot's restart_lsn ${facts.restart}: PostgreSQL no longer keeps that WAL for the slot, so ${outcome}. To read ` +
        `rows again use Debezium's incremental snapshot (an execute-snapshot signal); to start over use \`offsetctl reset\``;
    }
    case 'already-streamed':
      return `target ${target} lies between the slot's restart_lsn ${facts.restart} and confirmed_flush_lsn ${facts.confirmed}: PostgreSQL has already ` +
        `streamed it and forwards to ${facts.confirmed} without a word ("has been already streamed, forwarding to"), so the rows committed between ` +
        `${target} and ${facts.confirmed} would NOT come back though the rewind reports success. A rewind replays only from confirmed_flush_lsn up to the ` +
        `current offset (and with flush.lsn.source=true that window is almost empty); to read rows again use Debezium's incremental snapshot (an ` +
        `execute-snapshot signal)`;
    case 'forward':
      return `target ${target} is beyond the connector's current offset ${facts.current}: the rows committed between are skipped for good (the slot's ` +
        `confirmed_flush_lsn moves past them); pass --allow-forward to skip them knowingly`;
    case 'beyond-wal':
      return `target ${target} is beyond the end of the WAL (pg_current_wal_lsn() ${facts.wal}): every row committed before it is lost for good and the ` +
        `slot's confirmed_flush_lsn jumps there; pass --allow-forward only if that is the intent`;
  }
}

export const debeziumPostgres: ConnectorProfile = {
  name: 'debezium-postgres',
  classes: [DEBEZIUM_POSTGRES],
  check,
};

async function check(c: ProfileCheck): Promise<ProfileReport> {
  const name = c.connector.name;
  const o = debeziumOptions(c.connector.config);
  const facts = [`Debezium PostgreSQL source: slot.name ${o.slotName}, publication.name ${o.publication}, topic.prefix ${o.prefix || '(unset)'}, ` +
    `snapshot.mode ${o.snapshotMode}, offset.mismatch.strategy ${o.mismatch}, flush.lsn.source ${o.flushLsnSource}`];
  const warnings: string[] = [];
  const report: ProfileReport = { profile: 'debezium-postgres', facts, warnings, needsTasks: true };
  if (c.operation === 'copy') return copyCheck(c, o, report);
  const current = positions(c.current);
  const target = c.target ? positions(c.target) : [];
  for (const p of current) facts.push(`current offset: ${describePosition(p.position)}`);
  if (c.target && c.operation !== 'reset') for (const p of target) facts.push(`target offset: ${describePosition(p.position)}`);
  if (c.operation === 'reset') warnings.push(`${resetOutcome(o.snapshotMode)}; every sink downstream of its topics gets all of it again`);
  if (!o.flushLsnSource) warnings.push(`flush.lsn.source=false: the slot's confirmed_flush_lsn is never advanced by Debezium, so the WAL piles up on the ` +
    `source server until something confirms it`);
  if (c.operation !== 'reset' && c.target && (o.mismatch === 'trust_slot' || o.mismatch === 'trust_greater_lsn')) {
    warnings.push(`offset.mismatch.strategy=${o.mismatch}: on start Debezium moves its offset up to the slot's position, which undoes a move backwards`);
  }

  if (!c.options.sourceDb) {
    if (!c.options.skipSourceCheck && !c.options.finishingRun) {
      throw new OpsError('E_PREFLIGHT', `${name} is a Debezium PostgreSQL source: half of its position is the replication slot "${o.slotName}" on its ` +
        `database, which decides what a ${c.operation} really does (rows skipped silently, a re-snapshot, a failed task); offsetctl reads it before any ` +
        `change. Name a read-only login to that database: --source-db postgres://USER@HOST:PORT/DATABASE (the password from PGPASSWORD or ~/.pgpass, never ` +
        `from the connector's config), or a context's source-db; or accept the risk with --skip-source-check. Nothing was changed`, { field: 'source-db' });
    }
    const why = c.options.skipSourceCheck ? '--skip-source-check' : 'no --source-db (an interrupted run is finished without it)';
    if (c.operation === 'move') {
      warnings.push(`${why}: replication slot "${o.slotName}" is not read, so the move cannot wait for the original's task to let go of it: should ` +
        `that task's replication connection outlive its stop, the new connector reads RUNNING but never streams ("replication slot is active")`);
      return report;
    }
    warnings.push(c.operation === 'stop' || (c.operation === 'resume' && !c.target)
      ? `${why}: replication slot "${o.slotName}" was not read: a slot lost or dropped while the connector is stopped leaves it RUNNING with ` +
        `no task (its task retries for up to 30 minutes) and the changes since its offset are never streamed`
      : `${why}: replication slot "${o.slotName}" was not read, so nothing checks that this ${c.operation} does what it says: a target below ` +
        `the slot's restart_lsn fails the task or re-snapshots every table (snapshot.mode ${o.snapshotMode}), one below its confirmed_flush_lsn is skipped ` +
        `silently by PostgreSQL (those rows never come back), one beyond the current offset or the WAL loses rows for good, and a lost slot leaves the ` +
        `connector RUNNING with no task`);
    return report;
  }

  const db = await readSourceDb(c.options.sourceDb, o.slotName);
  facts.push(`source database ${db.display}: system identifier ${db.systemId ?? '(not readable by this login: grant it pg_monitor to check it)'}, current ` +
    `WAL ${showLsn(db.walLsn)}`);
  const slot = db.slot;
  if (slot) {
    facts.push(`slot ${slot.name}: restart_lsn ${slot.restartLsn !== undefined ? showLsn(slot.restartLsn) : '(none)'}, confirmed_flush_lsn ` +
      `${slot.confirmedFlushLsn !== undefined ? showLsn(slot.confirmedFlushLsn) : '(none)'}, wal_status ${slot.walStatus ?? '(unknown)'}, safe_wal_size ` +
      `${safeWal(slot.safeWalSize)}, ${slot.active ? `active (pid ${slot.activePid ?? '?'})` : 'inactive'}`);
    report.source = {
      database: db.display, ...(db.systemId ? { systemId: db.systemId } : {}), slotName: slot.name,
      ...(slot.restartLsn !== undefined ? { restartLsn: pgLsn(slot.restartLsn) } : {}),
    };
  } else {
    facts.push(`slot ${o.slotName}: does not exist on ${db.display}`);
  }

  if (c.operation === 'stop') return stopCheck(name, o.slotName, db, report);
  if (c.operation === 'move') {
    // One slot streams to one client: the move starts the new connector only once the old task let go (ops/move).
    report.exclusive = { kind: 'replication-slot', slotName: o.slotName, database: db.display };
    return report;
  }
  if (c.operation === 'resume' && !c.target) return resumeCheck(name, o, db, current, report);
  if (c.operation === 'rollback' && c.recorded) checkIdentity(name, c.recorded, db, o.slotName);
  if (c.operation === 'reset') return report;

  // rewind, rollback, a resumed run: every target LSN classified against the slot.
  if (target.length === 0) return report;
  if (!slot || slot.restartLsn === undefined || slot.confirmedFlushLsn === undefined) {
    throw new OpsError('E_PREFLIGHT', `${name}: replication slot "${o.slotName}" ` +
      `${slot ? 'has no restart_lsn or confirmed_flush_lsn (it was never used)' : `does not exist on ${db.display}`}: Debezium would create it at the ` +
      `current WAL ${pgLsn(db.walLsn)} and stream from there, so nothing before it is replayed whatever the offsets say. Nothing was ` +
      `changed`, { field: 'source-db' });
  }
  const window = { restartLsn: slot.restartLsn, confirmedFlushLsn: slot.confirmedFlushLsn, walLsn: db.walLsn };
  const byPartition = new Map(current.map((p) => [p.key, p.position.lsn]));
  const refusals: string[] = [];
  for (const t of target) {
    const cur = byPartition.get(t.key);
    const cls = classifyTarget(t.position.lsn, window, cur);
    const why = refusalFor(cls, showLsn(t.position.lsn), {
      restart: showLsn(slot.restartLsn), confirmed: showLsn(slot.confirmedFlushLsn), wal: showLsn(db.walLsn),
      ...(cur !== undefined ? { current: showLsn(cur) } : {}), snapshotMode: o.snapshotMode,
    });
    if (!why) {
      facts.push(`target ${showLsn(t.position.lsn)} lies between confirmed_flush_lsn and the current offset: PostgreSQL replays from there`);
      continue;
    }
    if ((cls === 'forward' || cls === 'beyond-wal') && c.options.allowForward) {
      warnings.push(`--allow-forward: ${why.replace(/; pass --allow-forward.*$/, '')}`);
      continue;
    }
    // A rollback's snapshot was taken when the slot still held that WAL: say what became of it.
    const then = c.recorded?.restartLsn;
    refusals.push(cls === 'below-restart' && then ? `${why} (when the snapshot was taken the slot's restart_lsn was ${then}: the slot has moved on since, ` +
      `or it was dropped and created again; PostgreSQL keeps no creation mark that tells the two apart)` : why);
  }
  if (refusals.length > 0) throw new OpsError('E_PREFLIGHT', `${name}: ${refusals.join('; ')}. Nothing was changed`, { field: 'offsets' });
  return report;
}

function stopCheck(name: string, slotName: string, db: SourceDbFacts, report: ProfileReport): ProfileReport {
  const slot = db.slot;
  if (!slot) return report;
  if (slot.safeWalSize === undefined) {
    report.warnings.push(`while ${name} is stopped, slot ${slotName} keeps all the WAL written on ${db.display} (no max_slot_wal_keep_size): the server's ` +
      `disk fills at its write rate until the connector resumes`);
  } else {
    report.warnings.push(`while ${name} is stopped, slot ${slotName} keeps the WAL: after ${safeWal(slot.safeWalSize)} more of WAL on ${db.display} the ` +
      `slot is lost (wal_status lost) and the connector cannot resume without a new snapshot; resume it before that`);
  }
  return report;
}

function resumeCheck(name: string, o: DebeziumOptions, db: SourceDbFacts, current: Located[], report: ProfileReport): ProfileReport {
  const slot = db.slot;
  if (slot?.walStatus === 'lost') {
    throw new OpsError('E_PREFLIGHT', `${name}: replication slot "${o.slotName}" on ${db.display} is lost (wal_status lost: the WAL it needed passed ` +
      `max_slot_wal_keep_size while the connector was stopped). Resumed, the connector reads RUNNING with no task while the task retries "Cannot obtain ` +
      `valid replication slot" for up to 30 minutes; the changes since its offset cannot be streamed any more. The way out: drop the slot (SELECT ` +
      `pg_drop_replication_slot('${o.slotName}')) and start over with \`offsetctl reset ${name} --source-db …\` (snapshot.mode ${o.snapshotMode}: ` +
      `${resetOutcome(o.snapshotMode)}), or re-read the missing rows with an incremental snapshot. Nothing was changed`, { field: 'source-db' });
  }
  if (!slot && current.length > 0) {
    throw new OpsError('E_PREFLIGHT', `${name}: replication slot "${o.slotName}" does not exist on ${db.display}, though the connector has streamed before ` +
      `(offset ${describePosition(current[0]!.position)}): resumed, Debezium creates the slot at the current WAL ${pgLsn(db.walLsn)} and the changes in ` +
      `between are never streamed. Re-read them with a snapshot (\`offsetctl reset ${name}\` with snapshot.mode initial), or accept the gap with ` +
      `--skip-source-check. Nothing was changed`, { field: 'source-db' });
  }
  if (slot?.active) report.warnings.push(`slot ${o.slotName} is active for pid ${slot.activePid ?? '?'}: another client (an old task, a copy) holds it; ` +
    `the connector's task cannot stream until it lets go`);
  return report;
}

/** A rollback's snapshot belongs to the slot it was taken against: another cluster or a recreated slot is refused. */
function checkIdentity(name: string, recorded: SourceIdentity, db: SourceDbFacts, slotName: string): void {
  const problems: string[] = [];
  if (recorded.systemId && db.systemId && recorded.systemId !== db.systemId) problems.push(`it was taken on PostgreSQL system ${recorded.systemId}, but ` +
    `${db.display} is system ${db.systemId} (another server, or one restored from a backup)`);
  if (recorded.slotName !== slotName) problems.push(`it was taken with slot ${recorded.slotName}, the connector now uses ${slotName}`);
  const then = recorded.restartLsn;
  const now = db.slot?.restartLsn;
  if (!db.slot) problems.push(`slot ${slotName} no longer exists`);
  else if (then && now !== undefined && now < (parseLsn(then) ?? 0n)) {
    problems.push(`slot ${slotName}'s restart_lsn went back from ${then} to ${pgLsn(now)}, which a slot never does: it was dropped and created again since`);
  }
  if (problems.length > 0) {
    throw new OpsError('E_PREFLIGHT', `${name}: the snapshot belongs to another incarnation of its replication slot: ${problems.join('; ')}. Its offsets ` +
      `point into WAL the slot now in place never held, so the connector would fail or skip rows. Nothing was changed (\`offsetctl reset\` starts over ` +
      `with a snapshot)`, { field: 'snapshot' });
  }
}

/** A copy on the same database must not share the slot, the publication or the topic prefix. */
function copyCheck(c: ProfileCheck, o: DebeziumOptions, report: ProfileReport): ProfileReport {
  const copy = c.copyConfig ?? c.connector.config;
  const n = debeziumOptions(copy);
  const where = (cfg: Record<string, string>): string => `${cfg['database.hostname'] ?? ''}:${cfg['database.port'] ?? '5432'}/${cfg['database.dbname'] ?? ''}`;
  if (where(copy) !== where(c.connector.config)) return report;
  const shared = [
    ...(n.slotName === o.slotName ? [`slot.name (${o.slotName}: one slot streams to one client; the copy would wait on "replication slot is active" ` +
      `forever)`] : []),
    ...(n.publication === o.publication ? [`publication.name (${o.publication})`] : []),
    ...(n.prefix === o.prefix ? [`topic.prefix (${o.prefix || 'unset'}: both would write the same topics, and their offsets share one partition)`] : []),
  ];
  if (shared.length > 0) {
    const sets = ['slot.name', 'publication.name', 'topic.prefix'].map((k) => `--set ${k}=<new>`).join(' ');
    throw new OpsError('E_PREFLIGHT', `${c.connector.name} is a Debezium PostgreSQL source and the copy reads the same database (${where(copy)}); it needs ` +
      `its own ${shared.join(', ')}: pass ${sets}. Nothing was changed`, { field: 'set' });
  }
  report.warnings.push(`the copy has its own slot ${n.slotName} and topic.prefix ${n.prefix}: its offsets are keyed by topic.prefix, so it finds none of ` +
    `the original's and starts as a new connector (${resetOutcome(n.snapshotMode)})`);
  return report;
}

interface Located { key: string; position: DebeziumPosition }

function positions(entries: readonly OffsetEntry[]): Located[] {
  const out: Located[] = [];
  for (const e of entries) {
    const position = debeziumPosition(e.offset);
    if (position) out.push({ key: partitionKey(e.partition), position });
  }
  return out;
}

function safeWal(bytes: bigint | undefined): string {
  if (bytes === undefined) return 'unlimited (max_slot_wal_keep_size -1)';
  const mb = Number(bytes) / (1024 * 1024);
  return `${bytes.toString()} bytes (${mb.toFixed(1)} MB)`;
}
