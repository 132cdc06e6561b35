// Debezium PostgreSQL as it really is (issue 34), on the plugins sandbox: the real Debezium
// plugin on the sandbox's workers and the sandbox's CDC PostgreSQL (wal_level=logical). Each
// scenario that made offsetctl report "done" while rows were skipped or lost is now a refusal
// naming the reason, before anything changes; a rewind inside the window PostgreSQL replays is
// accepted and the rows come again. Skipped (with how to start such a sandbox) when the running
// sandbox has no Debezium plugin; OFFSETCTL_REQUIRE_PLUGINS=1 makes that a failure.
// Real parts: the plugins sandbox (Kafka, Connect, Debezium/JDBC/Iceberg, a CDC PostgreSQL), a loopback HTTP server, a SQLite store file, spawns the CLI.
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { runCli } from '../support/cli.js';
import { ConnectRest, tempDir, waitFor } from '../support/connect.js';
import { cdcDatabase, debeziumConfig } from '../support/debezium.js';
import { requirePlugins, type PluginSandbox } from '../support/plugin-sandbox.js';
import { logEnds, readValues } from '../support/positions-kafka.js';

interface Source {
  name: string;
  db: string;
  slot: string;
  prefix: string;
  url: string;
  /** --source-db: the sandbox's loopback superuser, no password. */
  sourceDb: string;
  rest: ConnectRest;
  sql(text: string): Promise<Array<Record<string, unknown>>>;
  config: Record<string, string>;
}

/** A database with `public.orders` (ids 1..10) and a Debezium source streaming it, RUNNING with one task. */
async function debeziumSource(t: TestContext, sandbox: PluginSandbox, extra: Record<string, string> = {}): Promise<Source> {
  const url = sandbox.connect[0]!;
  const rest = new ConnectRest(url);
  let name = '';
  const db = await cdcDatabase(t, sandbox, 'dbz', ['CREATE TABLE orders (id int PRIMARY KEY, note text)', `INSERT INTO orders SELECT g, 'order ' || g FROM generate_series(1, 10) g`], {
    cleanup: () => rest.deleteConnector(name),
  });
  name = db.name;
  const config = debeziumConfig(sandbox.cdc!, db.id, { 'snapshot.mode': 'initial', ...extra });
  await rest.createConnector(name, config);
  await waitFor(`${name} RUNNING with a task`, async () => {
    const s = await rest.status(name);
    return s.connector.state === 'RUNNING' && s.tasks.length === 1 && s.tasks[0]!.state === 'RUNNING';
  });
  return { name, db: db.id, slot: db.id, prefix: db.id, url, sourceDb: db.sourceDb, rest, config, sql: db.sql };
}

interface Offset { lsn: number; lsn_proc?: number; lsn_commit?: number; txId?: number; ts_usec?: number }

async function offsetOf(s: Source): Promise<Offset | undefined> {
  const body = await (await fetch(`${s.url}/connectors/${s.name}/offsets`)).json() as { offsets: Array<{ offset: Offset }> };
  return body.offsets[0]?.offset;
}

async function slotOf(s: Source): Promise<{ restart: number; confirmed: number; wal: number }> {
  const [row] = await s.sql(`SELECT (restart_lsn - '0/0')::text AS restart, (confirmed_flush_lsn - '0/0')::text AS confirmed, (pg_current_wal_lsn() - '0/0')::text AS wal
    FROM pg_replication_slots WHERE slot_name = '${s.slot}'`);
  return { restart: Number(row!.restart), confirmed: Number(row!.confirmed), wal: Number(row!.wal) };
}

/**
 * Inserts ids and waits until the connector's committed offset is a streaming offset (not the
 * snapshot's: its offsets may not have been flushed yet when the insert is made) past the WAL
 * position before the insert, and has stayed the same over two reads a flush interval apart (the
 * worker may have flushed the offset of a record in the middle of the insert's transaction).
 */
async function insertAndWait(s: Source, from: number, to: number): Promise<Offset> {
  const [row] = await s.sql(`SELECT (pg_current_wal_lsn() - '0/0')::text AS wal`);
  const walBefore = Number(row!.wal);
  await s.sql(`INSERT INTO orders SELECT g, 'order ' || g FROM generate_series(${from}, ${to}) g`);
  let last: string | undefined;
  return waitFor(`${s.name}'s offset past ids ${from}-${to}, settled`, async () => {
    const now = await offsetOf(s);
    if (!now || 'snapshot' in now || now.lsn <= walBefore) return undefined;
    const seen = JSON.stringify(now);
    if (seen !== last) {
      last = seen;
      await new Promise((r) => setTimeout(r, 1500));
      return undefined;
    }
    return now;
  });
}

function offsetsFile(s: Source, lsn: number, base: Offset): string {
  const file = join(tempDir('dbz-offsets'), 'offsets.json');
  writeFileSync(file, JSON.stringify({ offsets: [{ partition: { server: s.prefix }, offset: { ...base, lsn, lsn_proc: lsn, lsn_commit: lsn } }] }));
  return file;
}

const hex = (n: number): string => `${Math.floor(n / 2 ** 32).toString(16).toUpperCase()}/${(n % 2 ** 32).toString(16).toUpperCase()}`;

test('Debezium PostgreSQL: every rewind that would skip, re-snapshot or lose rows is refused in the dry run, naming why', { timeout: 600_000 }, async (t) => {
  const sandbox = await requirePlugins(t, ['debezium-postgres'], { cdc: true });
  if (!sandbox) return;
  const s = await debeziumSource(t, sandbox);
  const current = await insertAndWait(s, 11, 15);
  // Debezium confirms what Kafka has: confirmed_flush_lsn moves up to the offset, restart_lsn stays behind.
  const slot = await waitFor('the slot confirmed past its restart_lsn', async () => {
    const now = await slotOf(s);
    return now.confirmed > now.restart + 1 ? now : undefined;
  });
  const rewind = (lsn: number, ...flags: string[]) => runCli(['--url', s.url, 'rewind', s.name, '--offsets', offsetsFile(s, lsn, current), '--dry-run', ...flags]);

  // Without the source database: refused, saying what to pass.
  const blind = await rewind(slot.confirmed);
  assert.equal(blind.status, 2, blind.stderr);
  assert.match(blind.stderr, /Debezium PostgreSQL source: half of its position is the replication slot .* --source-db postgres:\/\/USER@HOST:PORT\/DATABASE .* --skip-source-check/);

  // Between restart_lsn and confirmed_flush_lsn: PostgreSQL would forward silently.
  const between = Math.floor((slot.restart + slot.confirmed) / 2);
  const skipped = await rewind(between, '--source-db', s.sourceDb);
  assert.equal(skipped.status, 2, skipped.stderr);
  assert.match(skipped.stderr, new RegExp(`target ${hex(between)} \\(${between}\\) lies between the slot's restart_lsn ${hex(slot.restart)} \\(${slot.restart}\\) and confirmed_flush_lsn .*would NOT come back`));

  // Below restart_lsn: with snapshot.mode=initial the task fails.
  const below = await rewind(slot.restart - 1, '--source-db', s.sourceDb);
  assert.equal(below.status, 2, below.stderr);
  assert.match(below.stderr, /is below the slot's restart_lsn .* snapshot\.mode=initial the task fails/);

  // Ahead of the WAL (a hand-edited offset): rows lost for good.
  const ahead = await rewind(slot.wal + 10_000_000, '--source-db', s.sourceDb);
  assert.equal(ahead.status, 2, ahead.stderr);
  assert.match(ahead.stderr, /is beyond the end of the WAL \(pg_current_wal_lsn\(\) .*pass --allow-forward/);

  // --allow-forward skips knowingly: accepted, and the loss is said in the dry run.
  const forward = await rewind(slot.wal + 10_000_000, '--source-db', s.sourceDb, '--allow-forward');
  assert.equal(forward.status, 0, forward.stderr);
  assert.match(forward.stderr, /warning: --allow-forward: target .* is beyond the end of the WAL .*lost for good/);

  // Nothing changed by any of them.
  assert.deepEqual(await offsetOf(s), current);

  // The dry run of the current position shows the slot, LSNs as PostgreSQL writes them and ts_usec as a time.
  const here = await rewind(current.lsn, '--source-db', s.sourceDb);
  assert.equal(here.status, 0, here.stderr);
  assert.match(here.stdout, new RegExp(`slot ${s.slot}: restart_lsn [0-9A-F]+/[0-9A-F]+ \\(\\d+\\), confirmed_flush_lsn .* wal_status reserved, safe_wal_size .*active \\(pid \\d+\\)`));
  assert.match(here.stdout, /current offset: lsn [0-9A-F]+\/[0-9A-F]+ \(\d+\).* ts_usec \d{4}-\d\d-\d\dT/);
  assert.match(here.stdout, /snapshot\.mode initial, offset\.mismatch\.strategy no_validation, flush\.lsn\.source true/);

  // -o json: the same lines in the dry run's profile.facts.
  const json = await rewind(current.lsn, '--source-db', s.sourceDb, '-o', 'json');
  assert.equal(json.status, 0, json.stderr);
  const out = JSON.parse(json.stdout) as { status: string; profile?: { name: string; facts: string[] } };
  assert.equal(out.status, 'dry-run');
  assert.equal(out.profile?.name, 'debezium-postgres');
  assert.ok(out.profile.facts.some((f) => f.startsWith(`slot ${s.slot}: restart_lsn `)), json.stdout);

  // reset says what snapshot.mode will do, and that sinks get it all.
  const reset = await runCli(['--url', s.url, 'reset', s.name, '--dry-run', '--source-db', s.sourceDb]);
  assert.equal(reset.status, 0, reset.stderr);
  assert.match(reset.stderr, /snapshot\.mode=initial: with no offsets Debezium snapshots every captured table again: every row is sent again .* every sink downstream of its topics gets all of it again/);
  const risky = await runCli(['--url', s.url, 'reset', s.name, '--dry-run', '--skip-source-check']);
  assert.equal(risky.status, 0, risky.stderr);
  assert.match(risky.stderr, /--skip-source-check: replication slot .* was not read/);

  // A saved plan is checked again when applied: the profile too, with the login given to apply.
  const planFile = join(tempDir('dbz-plan'), 'reset.plan.json');
  const saved = await runCli(['--url', s.url, 'reset', s.name, '--plan-out', planFile, '--source-db', s.sourceDb]);
  assert.equal(saved.status, 0, saved.stderr);
  const applyBlind = await runCli(['--url', s.url, 'apply', planFile, '--dry-run']);
  assert.equal(applyBlind.status, 2, applyBlind.stderr);
  assert.match(applyBlind.stderr, /--source-db postgres:\/\/USER@HOST:PORT\/DATABASE/);
  const applyDry = await runCli(['--url', s.url, 'apply', planFile, '--dry-run', '--source-db', s.sourceDb]);
  assert.equal(applyDry.status, 0, applyDry.stderr);
  assert.match(applyDry.stdout, new RegExp(`slot ${s.slot}: restart_lsn`));

  // A batch asks each connector's profile the same way.
  const batchBlind = await runCli(['--url', s.url, 'reset', '--selector', `^${s.name}$`, '--dry-run']);
  assert.equal(batchBlind.status, 2, `${batchBlind.stdout}${batchBlind.stderr}`);
  assert.match(`${batchBlind.stdout}${batchBlind.stderr}`, /--source-db postgres:\/\/USER@HOST:PORT\/DATABASE/);
  const batch = await runCli(['--url', s.url, 'reset', '--selector', `^${s.name}$`, '--dry-run', '--source-db', s.sourceDb]);
  assert.equal(batch.status, 0, `${batch.stdout}${batch.stderr}`);
  assert.match(batch.stdout, /snapshot\.mode=initial: with no offsets Debezium snapshots every captured table again/);

  // A copy on the same database sharing the slot, publication and prefix is refused, naming them.
  const copy = await runCli(['--url', s.url, 'copy', s.name, '--as', `${s.name}-green`, '--dry-run']);
  assert.equal(copy.status, 2, copy.stderr);
  assert.match(copy.stderr, /needs its own slot\.name \(.*publication\.name \(.*topic\.prefix \(/);
  const own = await runCli(['--url', s.url, 'copy', s.name, '--as', `${s.name}-green`, '--dry-run', '--set', `slot.name=${s.slot}_g`, '--set', `publication.name=${s.slot}_g`, '--set', `topic.prefix=${s.prefix}_g`]);
  assert.equal(own.status, 0, own.stderr);
  assert.match(own.stderr, /the copy has its own slot/);
});

test('Debezium PostgreSQL: a rewind inside the window PostgreSQL replays is accepted, and the rows come again', { timeout: 600_000 }, async (t) => {
  const sandbox = await requirePlugins(t, ['debezium-postgres'], { cdc: true });
  if (!sandbox) return;
  // flush.lsn.source=false: the slot is never confirmed, so everything after it can be replayed.
  const s = await debeziumSource(t, sandbox, { 'flush.lsn.source': 'false' });
  const topic = `${s.prefix}.public.orders`;
  await readValues(sandbox.bootstrap, topic, 10);
  const first = await insertAndWait(s, 11, 15);
  const second = await insertAndWait(s, 16, 20);
  assert.ok(second.lsn > first.lsn);
  const stateDir = tempDir('dbz-state');
  const ok = await runCli(['--url', s.url, '--state-dir', stateDir, 'rewind', s.name, '--offsets', offsetsFile(s, first.lsn, first), '--yes', '--source-db', s.sourceDb]);
  assert.equal(ok.status, 0, ok.stderr);
  assert.match(ok.stdout, new RegExp(`target ${hex(first.lsn)} \\(${first.lsn}\\) lies between confirmed_flush_lsn and the current offset: PostgreSQL replays from there`));
  assert.match(ok.stderr, /flush\.lsn\.source=false/);
  // 10 snapshot rows and ids 11-20 once; then Debezium resumes after the target: the settled
  // offset of the insert of ids 11-15 (its last change, the whole transaction processed), so the
  // next transaction (ids 16-20) comes again, and neither 11-15 nor any snapshot row does.
  const values = await readValues(sandbox.bootstrap, topic, 25, 180_000);
  const ids = values.map((v) => (JSON.parse(v) as { after?: { id?: number }; payload?: { after?: { id?: number } } })).map((v) => v.after?.id ?? v.payload?.after?.id);
  for (let id = 16; id <= 20; id++) assert.equal(ids.filter((x) => x === id).length, 2, `id ${id} twice: ${JSON.stringify(ids)}`);
  for (let id = 1; id <= 15; id++) assert.equal(ids.filter((x) => x === id).length, 1, `id ${id} once: ${JSON.stringify(ids)}`);
  // Nothing more than that: read again, a little longer, and still 25.
  await new Promise((r) => setTimeout(r, 3000));
  assert.deepEqual(await logEnds(sandbox.bootstrap, topic, 1), [25], 'no record beyond the replayed transaction');

  // The run recorded the slot's identity; a rollback to its snapshot after the slot was recreated is refused.
  await runCli(['--url', s.url, 'stop', s.name, '--source-db', s.sourceDb]);
  await waitFor('slot released', async () => (await s.sql(`SELECT active FROM pg_replication_slots WHERE slot_name = '${s.slot}'`))[0]?.active === false);
  await s.sql(`SELECT pg_drop_replication_slot('${s.slot}')`);
  await s.sql(`SELECT pg_create_logical_replication_slot('${s.slot}', 'pgoutput')`);
  const back = await runCli(['--url', s.url, '--state-dir', stateDir, 'rollback', s.name, '--dry-run', '--source-db', s.sourceDb]);
  assert.equal(back.status, 2, back.stderr);
  assert.match(back.stderr, /is below the slot's restart_lsn .*when the snapshot was taken the slot's restart_lsn was [0-9A-F]+\/[0-9A-F]+: the slot has moved on since, or it was dropped and created again/);
  // Another slot name than the snapshot's: another incarnation, refused by name.
  await s.rest.request('PUT', `/connectors/${s.name}/config`, { ...s.config, 'slot.name': `${s.slot}_other` });
  const other = await runCli(['--url', s.url, '--state-dir', stateDir, 'rollback', s.name, '--dry-run', '--source-db', s.sourceDb]);
  assert.equal(other.status, 2, other.stderr);
  assert.match(other.stderr, new RegExp(`another incarnation of its replication slot: it was taken with slot ${s.slot}, the connector now uses ${s.slot}_other`));
});

test('Debezium PostgreSQL: stop shows the WAL the slot may still hold; resume without its slot is refused with the way out', { timeout: 600_000 }, async (t) => {
  const sandbox = await requirePlugins(t, ['debezium-postgres'], { cdc: true });
  if (!sandbox) return;
  const s = await debeziumSource(t, sandbox);
  await insertAndWait(s, 11, 12);
  const stop = await runCli(['--url', s.url, 'stop', s.name, '--source-db', s.sourceDb]);
  assert.equal(stop.status, 0, stop.stderr);
  assert.match(stop.stdout, /safe_wal_size/);
  assert.match(stop.stderr, /while .* is stopped, slot .* keeps/);
  // The slot gone while STOPPED (as a lost one is, for streaming): resuming would report RUNNING while nothing streams.
  await waitFor('slot released', async () => (await s.sql(`SELECT active FROM pg_replication_slots WHERE slot_name = '${s.slot}'`))[0]?.active === false);
  await s.sql(`SELECT pg_drop_replication_slot('${s.slot}')`);
  const resume = await runCli(['--url', s.url, 'resume', s.name, '--source-db', s.sourceDb]);
  assert.equal(resume.status, 2, resume.stderr);
  assert.match(resume.stderr, /replication slot .* does not exist .* the changes in between are never streamed/);
  assert.equal((await s.rest.status(s.name)).connector.state, 'STOPPED');
});
