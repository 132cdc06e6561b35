// Chaos: randomised rewind/reset/rollback runs on a source and a sink connector, each with one
// random fault from the classes of docs/reliability.md, then an operator's recovery (`runs show`,
// `runs resume --yes` or `rollback`) and a classification of the end state against the documented
// ones. Every step has its own timeout: a hang is a finding (an undocumented end state), not a
// stuck CI job. The summary (runs, faults by class, snapshots written vs found, end states by kind,
// undocumented end states) is printed and written as JSON under test-output/.
//
// Faults: SIGKILL of offsetctl before a random step or right after its change request was
// answered; the tests' loopback TCP proxy (latency, the change's answer lost, a stalled read, a
// half-closed first worker); the state folder (database locked by another program, a second
// offsetctl on the same folder); with OFFSETCTL_CHAOS_WORKERS=1 also a rebalance (a Connect worker
// leaves during the run, or joins during it) — that kills sandbox workers: only on a sandbox of
// your own (OFFSETCTL_SANDBOX_DIR), never a shared one.
//
// The sink is kept PAUSED (a run puts it back PAUSED), so its committed offsets do not move on
// their own and every end state can be checked exactly; the source reads a file and is RUNNING,
// with a marker partition it does not read (as in faults-kill.test.ts).
//
//   OFFSETCTL_CHAOS_SECONDS  time budget (default 120: the CI version); `npm run chaos -- --minutes 10`
//   OFFSETCTL_CHAOS_SEED     replay a run: the seed is printed at the start and in the summary
//   OFFSETCTL_CHAOS_RUNS     at most this many runs (default: as many as the budget allows)
//   OFFSETCTL_CHAOS_REPORT   the JSON summary (default test-output/chaos-<seed>.json)
//   OFFSETCTL_CHAOS_STORE    postgres: every command on a team store (the tests' PostgreSQL,
//                            `npm run chaos -- --store postgres`), whose faults replace the state
//                            folder's: a table locked past statement_timeout while the snapshot is
//                            written, and the store's connections cut while the run waits before its
//                            change; a killed run's lease (2 s) must pass before it reads interrupted
// Real parts: the sandbox's Kafka broker and Connect cluster, a real PostgreSQL, a loopback HTTP server, a SQLite store file, spawns the CLI.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { runCli, type CliResult } from '../support/cli.js';
import { type ConnectFixture, connectFixture, tempDir, waitFor } from '../support/connect.js';
import { FaultProxy, type Fault } from '../support/proxy.js';
import { repoRoot } from '../support/repo.js';
import { killSandboxWorker, restartSandboxWorker, resolveSandboxDir, workerRole, type ConnectClusterName } from '../../src/sandbox/index.js';
import { getSandbox } from '../support/sandbox.js';
import { newDatabase, testPgServer, type TestDatabase } from '../support/postgres.js';
import { createRequire } from 'node:module';

const BUDGET_MS = Number(process.env.OFFSETCTL_CHAOS_SECONDS ?? 120) * 1000;
const MAX_RUNS = Number(process.env.OFFSETCTL_CHAOS_RUNS ?? Number.POSITIVE_INFINITY);
const SEED = Number(process.env.OFFSETCTL_CHAOS_SEED ?? Math.floor(Math.random() * 2 ** 31));
const WORKER_FAULTS = process.env.OFFSETCTL_CHAOS_WORKERS === '1';
const TEAM_STORE = process.env.OFFSETCTL_CHAOS_STORE === 'postgres';
let team: TestDatabase | undefined;
const REPORT = process.env.OFFSETCTL_CHAOS_REPORT ?? join(repoRoot, 'test-output', `chaos-${SEED}.json`);
/** One CLI call: a run that takes longer has hung. */
const CLI_TIMEOUT_MS = 150_000;

// mulberry32: small, seedable, good enough to pick cases; the seed replays the same sequence.
let state = SEED >>> 0;
function random(): number {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;

type Op = 'rewind' | 'reset' | 'rollback';
type Kind = 'source' | 'sink';
const STEPS: Record<Op, string[]> = {
  rewind: ['readInitialState', 'stopConnector', 'waitForStopped', 'captureOffsets', 'rewindOffsets', 'verifyOffsets', 'decideFinalState', 'resumeConnector', 'waitForRunning', 'pauseConnector', 'waitForPaused', 'readFinalState'],
  reset: ['readInitialState', 'stopConnector', 'waitForStopped', 'snapshotOffsets', 'resetOffsets', 'confirmCleared', 'decideFinalState', 'resumeConnector', 'waitForRunning', 'pauseConnector', 'waitForPaused', 'readFinalState'],
  rollback: ['readInitialState', 'stopConnector', 'waitForStopped', 'captureOffsets', 'restoreOffsets', 'verifyOffsets', 'decideFinalState', 'resumeConnector', 'waitForRunning', 'pauseConnector', 'waitForPaused', 'readFinalState'],
};
const CHANGE_STEP: Record<Op, string> = { rewind: 'rewindOffsets', reset: 'resetOffsets', rollback: 'restoreOffsets' };
const CHANGE_METHOD: Record<Op, string> = { rewind: 'PATCH', reset: 'DELETE', rollback: 'PATCH' };
const FAULT_CLASSES = ['none', 'kill-at-step', 'kill-mid-change', 'network', 'state-folder', ...(WORKER_FAULTS ? ['rebalance'] : [])] as const;
type FaultClass = (typeof FAULT_CLASSES)[number];

interface Target {
  kind: Kind;
  name: string;
  stateDir: string;
  /** The connector's state between runs: what every run must leave it in. */
  home: 'RUNNING' | 'PAUSED';
  /** The marker partition's offset now (null: absent). */
  marker(): Promise<number | null>;
  rewindBody(value: number): string;
}

interface Summary {
  seed: number;
  budgetSeconds: number;
  workerFaults: boolean;
  runs: number;
  faults: Record<string, number>;
  faultsFired: number;
  snapshotsWritten: number;
  snapshotsFound: number;
  endStates: Record<string, number>;
  undocumented: number;
  undocumentedCases: Array<Record<string, unknown>>;
  seconds: number;
}

let cluster: ConnectFixture;
let workers: string[];
let targets: Target[];
const sandboxDir = resolveSandboxDir();
/** The worker a rebalance fault takes away: this test lane's cluster's second one. */
let victim = 'worker-2';
/** Every snapshot any run wrote: id → the marker it must hold. */
const written = new Map<string, { target: Target; marker: number | null }>();

before(async () => {
  if (TEAM_STORE) team = await newDatabase('chaos');
  cluster = await connectFixture();
  const sandbox = await getSandbox();
  workers = sandbox.connect;
  victim = workerRole(sandbox.cluster as ConnectClusterName, 2);
  const source = await cluster.createSource(3);
  const sourceMarker = { filename: join(cluster.dir, 'chaos-marker.txt') };
  const sink = await cluster.createSink(source.topic);
  // Paused: its committed offsets stay as the runs leave them.
  await cluster.request('PUT', `/connectors/${encodeURIComponent(sink.name)}/pause`);
  await waitFor('sink PAUSED', async () => (await cluster.status(sink.name)).connector.state === 'PAUSED');
  const sinkPartition = { kafka_topic: source.topic, kafka_partition: 0 };
  targets = [
    {
      kind: 'source', name: source.name, stateDir: tempDir('offsetctl-chaos-src-'), home: 'RUNNING',
      marker: async () => {
        const e = (await cluster.offsets(source.name)).offsets.find((o) => o.partition.filename === sourceMarker.filename);
        return e?.offset ? Number((e.offset as { position: number }).position) : null;
      },
      rewindBody: (value) => JSON.stringify({ offsets: [{ partition: sourceMarker, offset: { position: value } }] }),
    },
    {
      kind: 'sink', name: sink.name, stateDir: tempDir('offsetctl-chaos-sink-'), home: 'PAUSED',
      marker: async () => {
        const e = (await cluster.offsets(sink.name)).offsets.find((o) => o.partition.kafka_topic === source.topic && Number(o.partition.kafka_partition) === 0);
        return e?.offset ? Number((e.offset as { kafka_offset: number }).kafka_offset) : null;
      },
      rewindBody: (value) => JSON.stringify({ offsets: [{ partition: sinkPartition, offset: { kafka_offset: value } }] }),
    },
  ];
  // The sink's topic must hold records for its offsets to be valid targets (the source wrote 3).
});
after(async () => cluster?.cleanup());

async function cli(args: string[], options: { env?: NodeJS.ProcessEnv; stdin?: string; storeQuery?: string } = {}): Promise<CliResult & { hung: boolean }> {
  const { storeQuery, ...rest } = options;
  const store = team ? ['--store', `${team.url}${storeQuery ?? ''}`] : [];
  const teamEnv = team ? { OFFSETCTL_STORE: undefined, PGPASSWORD: team.owner.password, OFFSETCTL_STORE_LEASE_SECONDS: '2' } : {};
  const r = await runCli([...args, ...store], { ...rest, env: { ...teamEnv, ...rest.env }, timeoutMs: CLI_TIMEOUT_MS });
  // SIGTERM/SIGKILL from runCli's own timeout (a test hook's SIGKILL ends the process long before).
  return { ...r, hung: r.signal === 'SIGTERM' || (r.signal === 'SIGKILL' && !/test hook: killing offsetctl/.test(r.stderr)) };
}

interface RunRow { id: string; status: string; lastStep?: string; snapshotId?: string; operation: string }
async function newestRun(t: Target): Promise<RunRow | undefined> {
  const r = await cli(['runs', '--connector', t.name, '--state-dir', t.stateDir, '--output', 'json']);
  return r.status === 0 ? (JSON.parse(r.stdout) as RunRow[])[0] : undefined;
}

/** The marker in the snapshot a plain `rollback` restores now: the newest one (the harness leaves no interrupted run behind). */
async function latestSnapshotMarker(t: Target): Promise<{ id: string; marker: number | null } | undefined> {
  const list = await cli(['snapshots', t.name, '--state-dir', t.stateDir, '--output', 'json']);
  const id = list.status === 0 ? (JSON.parse(list.stdout) as Array<{ id: string }>)[0]?.id : undefined;
  if (!id) return undefined;
  const marker = await snapshotMarker(t, id);
  return marker === 'missing' ? undefined : { id, marker };
}

async function snapshotMarker(t: Target, id: string): Promise<number | null | 'missing'> {
  const shown = await cli(['snapshots', 'show', id, '--state-dir', t.stateDir, '--output', 'json']);
  if (shown.status !== 0) return 'missing';
  const snap = JSON.parse(shown.stdout) as { offsets: Array<{ partition: Record<string, unknown>; offset: Record<string, unknown> | null }> };
  const entry = t.kind === 'source'
    ? snap.offsets.find((o) => String(o.partition.filename).endsWith('chaos-marker.txt'))
    : snap.offsets.find((o) => Number(o.partition.kafka_partition) === 0);
  if (!entry?.offset) return null;
  return Number(t.kind === 'source' ? entry.offset.position : entry.offset.kafka_offset);
}

/** Waits until the connector is back home (RUNNING / PAUSED, tasks too); false after the timeout. */
async function home(t: Target, timeoutMs = 60_000): Promise<boolean> {
  return waitFor(`${t.name} ${t.home}`, async () => {
    const s = await cluster.status(t.name);
    // A connector paused from STOPPED has no tasks until it is resumed (Kafka Connect drops them at the stop).
    return s.connector.state === t.home && (t.home === 'PAUSED' || s.tasks.length > 0) && s.tasks.every((k) => k.state === t.home);
  }, timeoutMs, 500).then(() => true, () => false);
}

interface Case {
  n: number;
  target: Target;
  op: Op;
  faultClass: FaultClass;
  fault: string;
  recovery?: string;
}

test(`chaos: randomised runs with random faults (seed ${SEED}), every end state documented, no snapshot lost`, { timeout: BUDGET_MS + 15 * 60_000 }, async (t) => {
  t.diagnostic(`chaos seed ${SEED} (replay: OFFSETCTL_CHAOS_SEED=${SEED}), budget ${BUDGET_MS / 1000} s, worker faults ${WORKER_FAULTS ? 'on' : 'off'}`);
  const started = Date.now();
  const summary: Summary = { seed: SEED, budgetSeconds: BUDGET_MS / 1000, workerFaults: WORKER_FAULTS, runs: 0, faults: {}, faultsFired: 0, snapshotsWritten: 0, snapshotsFound: 0, endStates: {}, undocumented: 0, undocumentedCases: [], seconds: 0 };
  // A first plain rewind per connector: every later rollback has a snapshot to go to.
  for (const target of targets) {
    const r = await cli(['rewind', target.name, '--offsets', '-', '--yes', '--url', workers.join(','), '--state-dir', target.stateDir], { stdin: target.rewindBody(1) });
    assert.equal(r.status, 0, r.stderr);
    assert.ok(await home(target), `${target.kind} not ${target.home} after the first rewind: ${JSON.stringify(await cluster.status(target.name))}\n${r.stdout}${r.stderr}`);
  }
  try {
    for (let n = 1; n <= MAX_RUNS && Date.now() - started < BUDGET_MS; n++) {
      const c: Case = { n, target: pick(targets), op: pick(['rewind', 'reset', 'rollback'] as const), faultClass: pick(FAULT_CLASSES), fault: '' };
      const end = await oneRun(c, summary);
      summary.runs++;
      summary.faults[c.faultClass] = (summary.faults[c.faultClass] ?? 0) + 1;
      summary.endStates[end.kind] = (summary.endStates[end.kind] ?? 0) + 1;
      t.diagnostic(`#${n} ${c.target.kind} ${c.op}, fault ${c.faultClass}${c.fault ? ` (${c.fault})` : ''}${c.recovery ? `, recovery ${c.recovery}` : ''}: ${end.kind}`);
      if (end.kind.startsWith('UNDOCUMENTED')) {
        summary.undocumented++;
        summary.undocumentedCases.push({ n, connector: c.target.kind, op: c.op, faultClass: c.faultClass, fault: c.fault, recovery: c.recovery, ...end.detail });
        // A connector left in an unknown state would spoil the runs after it.
        if (!(await home(c.target, 5_000))) break;
      }
      // Every snapshot written so far is still there with the offsets of before its run.
      summary.snapshotsFound = 0;
      for (const [id, w] of written) if ((await snapshotMarker(w.target, id)) === w.marker) summary.snapshotsFound++;
      summary.snapshotsWritten = written.size;
    }
  } finally {
    summary.seconds = Math.round((Date.now() - started) / 1000);
    mkdirSync(dirname(REPORT), { recursive: true });
    writeFileSync(REPORT, JSON.stringify(summary, null, 2) + '\n');
    t.diagnostic(`chaos summary (${REPORT}): ${JSON.stringify(summary)}`);
  }
  assert.ok(summary.runs > 0, 'at least one run');
  assert.equal(summary.snapshotsFound, summary.snapshotsWritten, 'snapshots lost');
  assert.equal(summary.undocumented, 0, `undocumented end states: ${JSON.stringify(summary.undocumentedCases, null, 1)}`);
});

interface End { kind: string; detail?: Record<string, unknown> }

interface PgSession { query(q: string, v?: unknown[]): Promise<unknown>; end(): Promise<void> }
/** The superuser on the chaos database: for locking a table or cutting connections. */
async function adminSession(): Promise<PgSession> {
  const s = await testPgServer();
  const { Client } = createRequire(import.meta.url)('pg') as { Client: new (c: Record<string, unknown>) => PgSession & { connect(): Promise<void>; on(e: string, f: () => void): void } };
  const c = new Client({ host: s.host, port: s.port, user: s.adminUser, password: s.adminPassword, database: team!.name });
  c.on('error', () => undefined);
  await c.connect();
  return c;
}

async function oneRun(c: Case, summary: Summary): Promise<End> {
  const t = c.target;
  assert.ok(await home(t), `${t.name} is ${t.home} before run ${c.n}`);
  const before = await t.marker();
  // What the operation writes (null: removed), and what a plain rollback restores.
  let target: number | null;
  let stdin: string | undefined;
  if (c.op === 'rewind') {
    const choices = (t.kind === 'sink' ? [0, 1, 2] : [100 + c.n, 200 + c.n]).filter((v) => v !== before);
    target = pick(choices);
    stdin = t.rewindBody(target);
  } else if (c.op === 'reset') {
    target = null;
  } else {
    const snap = await latestSnapshotMarker(t);
    target = snap ? snap.marker : before;
  }
  const proxies = [await FaultProxy.start(workers[0]!), await FaultProxy.start(workers[1] ?? workers[0]!)];
  const env: NodeJS.ProcessEnv = {};
  const extra: string[] = [];
  let during: (() => Promise<void>) | undefined;
  let afterRun: (() => Promise<void>) | undefined;
  let holder: Database.Database | undefined;
  let admin: PgSession | undefined;
  let storeQuery: string | undefined;
  // The run holds before its change step (with its lock) until the harness releases it.
  const release = join(tempDir('offsetctl-chaos-release-'), 'go');
  const pause = (step: string) => Object.assign(env, { OFFSETCTL_TEST_PAUSE_BEFORE_STEP: step, OFFSETCTL_TEST_RELEASE_FILE: release });
  const runsBefore = (await newestRun(t))?.id;
  // True once the run waits before its change step; false when it ended without getting there
  // (nothing to change, a refusal): then the fault has nothing to act on.
  let settled = false;
  const waitPaused = async (): Promise<boolean> => 'paused' === await waitFor('the run to reach its change step', async () => {
    if (settled) return 'ended';
    const run = await newestRun(t);
    return run !== undefined && run.id !== runsBefore && run.lastStep === STEPS[c.op][3] ? 'paused' : undefined;
  }, 90_000, 200);
  switch (c.faultClass) {
    case 'kill-at-step':
      c.fault = `SIGKILL before ${pick(STEPS[c.op])}`;
      env.OFFSETCTL_TEST_KILL_BEFORE_STEP = c.fault.slice('SIGKILL before '.length);
      break;
    case 'kill-mid-change':
      c.fault = `SIGKILL after the ${CHANGE_METHOD[c.op]} was answered`;
      env.OFFSETCTL_TEST_KILL_AFTER_SEND = CHANGE_METHOD[c.op];
      break;
    case 'network': {
      const kind = pick(['latency', 'answer-lost', 'stalled-read', 'half-close'] as const);
      c.fault = kind;
      const faults: Record<typeof kind, Fault> = {
        latency: { kind: 'latency', ms: 150 },
        'answer-lost': { kind: 'reset-after-request', method: CHANGE_METHOD[c.op] },
        'stalled-read': { kind: 'stall-after-request', method: 'GET' },
        'half-close': { kind: 'half-close' },
      };
      proxies[0]!.fault = faults[kind];
      if (kind === 'stalled-read') extra.push('--timeout', '3000');
      break;
    }
    case 'state-folder': {
      const kind = pick(team ? ['table-locked', 'second-process', 'connections-cut'] as const : ['database-locked', 'second-process'] as const);
      c.fault = team ? `team store: ${kind}` : kind;
      if (kind === 'table-locked') {
        // The snapshot's INSERT waits on this lock until statement_timeout cancels it.
        admin = await adminSession();
        await admin.query('BEGIN');
        await admin.query('LOCK TABLE snapshots IN ACCESS EXCLUSIVE MODE');
        storeQuery = '?statement_timeout=3000';
      } else if (kind === 'connections-cut') {
        pause(CHANGE_STEP[c.op]);
        during = async () => {
          if (!(await waitPaused())) return;
          const a = await adminSession();
          try {
            await a.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1', [team!.owner.user]);
          } finally {
            await a.end();
          }
        };
      } else if (kind === 'database-locked') {
        holder = new Database(join(t.stateDir, 'offsetctl.db'));
        holder.pragma('locking_mode = EXCLUSIVE');
        holder.exec('BEGIN EXCLUSIVE');
      } else {
        // The run holds its lock before its change step while a second offsetctl tries the same connector.
        pause(CHANGE_STEP[c.op]);
        during = async () => {
          if (!(await waitPaused())) return;
          const other = pick((t.kind === 'sink' ? [0, 1, 2] : [998, 999]).filter((v) => v !== before));
          const second = await cli(['rewind', t.name, '--offsets', '-', '--yes', '--url', workers.join(','), '--state-dir', t.stateDir], { stdin: t.rewindBody(other) });
          if (second.status !== 2 || !/E_LOCKED|locked|another run/i.test(second.stderr + second.stdout)) throw new Error(`second process not refused: exit ${second.status} ${second.stderr}`);
        };
      }
      break;
    }
    case 'rebalance': {
      const kind = pick(['worker leaves', 'worker joins'] as const);
      c.fault = kind;
      pause(CHANGE_STEP[c.op]);
      if (kind === 'worker leaves') {
        during = async () => {
          if (await waitPaused()) await killSandboxWorker({ dir: sandboxDir, role: victim });
        };
      } else {
        await killSandboxWorker({ dir: sandboxDir, role: victim });
        during = async () => {
          await waitPaused();
          await restartSandboxWorker({ dir: sandboxDir, role: victim });
        };
      }
      afterRun = async () => {
        await restartSandboxWorker({ dir: sandboxDir, role: victim });
      };
      break;
    }
    case 'none':
      break;
  }
  const conn = ['--url', proxies.map((p) => p.url).join(','), '--state-dir', t.stateDir, ...extra];
  const args = c.op === 'rewind' ? ['rewind', t.name, '--offsets', '-', '--yes', ...conn] : [c.op, t.name, '--yes', ...conn];
  let r: CliResult & { hung: boolean };
  let duringError: unknown;
  try {
    const running = cli(args, { env, ...(stdin !== undefined ? { stdin } : {}), ...(storeQuery ? { storeQuery } : {}) }).finally(() => { settled = true; });
    if (during) await during().catch((err: unknown) => { duringError = err; });
    if (env.OFFSETCTL_TEST_RELEASE_FILE && !existsSync(release)) writeFileSync(release, '');
    r = await running;
  } finally {
    if (holder) {
      holder.exec('ROLLBACK');
      holder.close();
    }
    if (admin) {
      await admin.query('ROLLBACK').catch(() => undefined);
      await admin.end();
    }
    for (const p of proxies) await p.close().catch(() => undefined);
    if (afterRun) await afterRun();
  }
  const killed = r.signal === 'SIGKILL' && !r.hung;
  // A kill before a step the run never reaches (pauseConnector of a RUNNING source) does not fire.
  if (killed || (['network', 'rebalance', 'state-folder'].includes(c.faultClass) && !/nothing to change/.test(r.stdout + r.stderr))) summary.faultsFired++;
  // On a team store a killed holder counts as gone once its lease (2 s) has passed.
  if (killed && team) await waitFor('the killed run to read interrupted', async () => (await newestRun(t))?.status === 'interrupted', 20_000, 300).catch(() => undefined);
  const run = await newestRun(t);
  const ownRun = run && run.id !== runsBefore ? run : undefined;
  if (ownRun?.snapshotId && !written.has(ownRun.snapshotId)) written.set(ownRun.snapshotId, { target: t, marker: before });
  const detail = (): Record<string, unknown> => ({ exit: r.status, signal: r.signal, hung: r.hung, marker: { before, target }, run: ownRun, stderr: r.stderr.slice(-1500), ...(duringError ? { duringError: String(duringError) } : {}) });
  if (r.hung) return { kind: 'UNDOCUMENTED: offsetctl hung (killed by the harness timeout)', detail: detail() };
  if (duringError) return { kind: 'UNDOCUMENTED: the fault did not behave as documented', detail: detail() };

  // The operator: read `runs show`, then finish or undo an interrupted run (URLs given now: the workers).
  const direct = ['--url', workers.join(','), '--state-dir', t.stateDir];
  if (killed) {
    if (ownRun?.status !== 'interrupted') return { kind: 'UNDOCUMENTED: killed run not shown as interrupted', detail: detail() };
    const shown = await cli(['runs', 'show', ownRun.id, '--state-dir', t.stateDir]);
    if (!/interrupted/.test(shown.stdout)) return { kind: 'UNDOCUMENTED: runs show does not say interrupted', detail: detail() };
    c.recovery = pick(['runs resume', 'rollback'] as const);
    let rec = c.recovery === 'runs resume' ? await cli(['runs', 'resume', ownRun.id, '--yes', ...direct]) : await cli(['rollback', t.name, '--yes', ...direct]);
    if (rec.hung) return { kind: `UNDOCUMENTED: ${c.recovery} hung`, detail: { ...detail(), recovery: rec.stderr.slice(-1500) } };
    let how: string = c.recovery;
    if (c.recovery === 'rollback' && rec.status === 2 && /nothing of it to roll back/.test(rec.stderr)) {
      if (ownRun.snapshotId) return { kind: 'UNDOCUMENTED: rollback refused a run that has a snapshot', detail: { ...detail(), recovery: rec.stderr } };
      if ((await t.marker()) !== before) return { kind: 'UNDOCUMENTED: refused rollback, but offsets changed', detail: detail() };
      rec = await cli(['runs', 'resume', ownRun.id, '--yes', ...direct]);
      how = 'rollback refused (nothing of the run to roll back) → runs resume';
    }
    if (rec.status !== 0 || !(await home(t))) return { kind: `UNDOCUMENTED: ${how} did not end with exit 0 and the connector ${t.home}`, detail: { ...detail(), recovery: `exit ${rec.status} ${rec.stderr.slice(-1500)}` } };
    const m = await t.marker();
    const rolledBack = how === 'rollback';
    // A rollback of a rollback killed before its own snapshot restores that rollback's target.
    const expected = rolledBack ? (ownRun.snapshotId ? before : c.op === 'rollback' ? target : undefined) : target;
    if (m !== expected) return { kind: `UNDOCUMENTED: after ${how} the marker is ${m}, expected ${expected}`, detail: detail() };
    return { kind: `killed → ${how} → ${rolledBack ? (ownRun.snapshotId ? 'offsets of before' : 'the rollback\'s own target') : 'completed'}, ${t.home}` };
  }
  if (r.status === 0) {
    const unchanged = /nothing to change/.test(r.stdout + r.stderr);
    if (!(await home(t))) return { kind: `UNDOCUMENTED: exit 0 but the connector is not ${t.home}`, detail: detail() };
    const m = await t.marker();
    if (unchanged) return m === before ? { kind: 'nothing to change (no stop, no snapshot)' } : { kind: 'UNDOCUMENTED: "nothing to change" but the marker moved', detail: detail() };
    return m === target ? { kind: `completed, ${t.home}` } : { kind: `UNDOCUMENTED: exit 0, marker ${m} instead of ${target}`, detail: detail() };
  }
  if (r.status === 2) {
    // Refused before anything changed: a locked state store or connector, a rollback without a target.
    const m = await t.marker();
    if (m !== before || !(await home(t, 10_000))) return { kind: 'UNDOCUMENTED: refused (exit 2) but something changed', detail: detail() };
    return { kind: 'refused before any change (exit 2), nothing changed' };
  }
  if (r.status === 1) {
    // A failed run: the account names the state; recovery put it back, or the operator rolls back.
    if (/database is locked|busy|statement_timeout/i.test(r.stderr)) {
      const m = await t.marker();
      return m === before && (await home(t, 10_000)) ? { kind: 'refused: state store locked by another program (exit 1), nothing changed' } : { kind: 'UNDOCUMENTED: locked store, but something changed', detail: detail() };
    }
    if (!/The connector is now/.test(r.stderr + r.stdout)) return { kind: 'UNDOCUMENTED: failed without naming the connector\'s state', detail: detail() };
    if (await home(t, 20_000)) {
      const m = await t.marker();
      if (m === before) return { kind: `failed → recovered → offsets of before, ${t.home}` };
      if (m === target && /kept \(not undone\)/.test(r.stderr + r.stdout)) return { kind: `failed → write read back as made, kept, ${t.home}` };
    }
    // Not home: the documented way out is rollback.
    c.recovery = 'rollback';
    const rec = await cli(['rollback', t.name, '--yes', ...direct]);
    if (rec.hung) return { kind: 'UNDOCUMENTED: rollback after a failed run hung', detail: detail() };
    if (rec.status === 0 && (await home(t)) && (await t.marker()) === before) return { kind: `failed with an exact account → rollback → offsets of before, ${t.home}` };
    return { kind: 'UNDOCUMENTED: failed run not recovered by rollback', detail: { ...detail(), recovery: `exit ${rec.status} ${rec.stderr.slice(-1500)}` } };
  }
  return { kind: `UNDOCUMENTED: exit ${r.status}`, detail: detail() };
}
