// Chaos: N randomised runs of rewind and reset, each with one random fault from the fault classes
// of docs/reliability.md (offsetctl SIGKILLed before a random step or after its change request,
// the change request's answer lost, a stalled read, a refused first worker, or none), then a
// random recovery for interrupted runs. Every run must end in a documented state; the summary
// counts runs, faults, snapshots written vs found, and undocumented end states (must be 0).
// CI runs 3 (OFFSETCTL_CHAOS_RUNS); `npm run chaos` runs 30 within OFFSETCTL_CHAOS_SECONDS (600).
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { ConnectFixture, runCli, tempDir, waitFor } from '../ops/support/cluster.js';
import { FaultProxy } from '../support/proxy.js';

const RUNS = Number(process.env.OFFSETCTL_CHAOS_RUNS ?? 3);
const BUDGET_MS = Number(process.env.OFFSETCTL_CHAOS_SECONDS ?? 600) * 1000;
const SEED = Number(process.env.OFFSETCTL_CHAOS_SEED ?? Date.now() % 100_000);
let rand = SEED;
const random = (): number => ((rand = (rand * 1103515245 + 12345) % 2147483648) / 2147483648);
const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;

const STEPS = {
  rewind: ['readInitialState', 'stopConnector', 'waitForStopped', 'captureOffsets', 'rewindOffsets', 'verifyOffsets', 'decideFinalState', 'resumeConnector', 'waitForRunning', 'readFinalState'],
  reset: ['readInitialState', 'stopConnector', 'waitForStopped', 'snapshotOffsets', 'resetOffsets', 'confirmCleared', 'decideFinalState', 'resumeConnector', 'waitForRunning', 'readFinalState'],
} as const;
const FAULTS = ['kill-before-step', 'kill-after-send', 'answer-lost', 'stalled-read', 'first-worker-refuses', 'none'] as const;

let cluster: ConnectFixture;
let source: { name: string; file: string };
let other: { filename: string };
let workers: string[];

before(async () => {
  cluster = new ConnectFixture();
  workers = (JSON.parse((await runCli(['sandbox', 'status', '--output', 'json'])).stdout) as { connect: string[] }).connect;
  source = await cluster.createSource(3);
  other = { filename: join(cluster.dir, 'chaos-marker.txt') };
});
after(async () => cluster?.cleanup());

async function marker(): Promise<number | null> {
  const e = (await cluster.offsets(source.name)).offsets.find((o) => o.partition.filename === other.filename);
  return e?.offset ? Number((e.offset as { position: number }).position) : null;
}

test(`chaos: ${RUNS} randomised runs (seed ${SEED}), every end state documented`, async (t) => {
  const started = Date.now();
  const summary = { runs: 0, faults: {} as Record<string, number>, snapshotsWritten: 0, snapshotsFound: 0, undocumented: 0, endStates: {} as Record<string, number> };
  for (let i = 0; i < RUNS && Date.now() - started < BUDGET_MS; i++) {
    await cluster.waitRunning(source.name);
    const op = pick(['rewind', 'reset'] as const);
    const fault = pick(FAULTS);
    const state = tempDir('offsetctl-chaos-');
    const beforeMarker = await marker();
    const target = op === 'rewind' ? 100 + i : null;
    const p1 = await FaultProxy.start(workers[0]!);
    const p2 = await FaultProxy.start(workers[1] ?? workers[0]!);
    const env: Record<string, string> = {};
    let extra: string[] = [];
    if (fault === 'kill-before-step') env.OFFSETCTL_TEST_KILL_BEFORE_STEP = pick(STEPS[op]);
    if (fault === 'kill-after-send') env.OFFSETCTL_TEST_KILL_AFTER_SEND = op === 'rewind' ? 'PATCH' : 'DELETE';
    if (fault === 'answer-lost') p1.fault = { kind: 'reset-after-request', method: op === 'rewind' ? 'PATCH' : 'DELETE' };
    if (fault === 'stalled-read') { p1.fault = { kind: 'stall-after-request', method: 'GET' }; extra = ['--timeout', '3000']; }
    if (fault === 'first-worker-refuses') await p1.close();
    const conn = ['--url', `${p1.url},${p2.url}`, '--state-dir', state, ...extra];
    const args = op === 'rewind' ? ['rewind', source.name, '--offsets', '-', '--yes', ...conn] : ['reset', source.name, '--yes', ...conn];
    const r = await runCli(args, { env, ...(op === 'rewind' ? { input: JSON.stringify({ offsets: [{ partition: other, offset: { position: target } }] }) } : {}) });
    summary.runs++;
    summary.faults[fault] = (summary.faults[fault] ?? 0) + 1;
    let end = 'undocumented';
    const runs = JSON.parse((await runCli(['runs', '--state-dir', state, '--output', 'json'])).stdout) as Array<{ id: string; status: string; snapshotId?: string }>;
    const run = runs[0];
    if (run?.snapshotId) {
      summary.snapshotsWritten++;
      const shown = await runCli(['snapshots', 'show', run.snapshotId, '--state-dir', state, '--output', 'json']);
      const snap = shown.status === 0 ? JSON.parse(shown.stdout) as { offsets: Array<{ partition: { filename?: string }; offset: { position?: number } | null }> } : undefined;
      const m = snap?.offsets.find((o) => o.partition.filename === other.filename)?.offset?.position ?? null;
      if (snap && m === beforeMarker) summary.snapshotsFound++;
    }
    const direct = ['--url', workers.join(','), '--state-dir', state];
    if (r.signal === 'SIGKILL') {
      const recovery = pick(['resume', 'rollback'] as const);
      const rec = recovery === 'resume' ? await runCli(['runs', 'resume', run!.id, ...direct]) : await runCli(['rollback', source.name, '--yes', ...direct]);
      if (recovery === 'rollback' && rec.status === 2 && /no snapshot of/.test(rec.stderr) && !run?.snapshotId) {
        await runCli(['runs', 'resume', run!.id, ...direct]);
      }
      await waitFor('RUNNING', async () => (await cluster.status(source.name)).connector.state === 'RUNNING', 120_000, 500);
      const m = await marker();
      if (recovery === 'resume' && m === target) end = 'killed → resumed → completed';
      else if (recovery === 'rollback' && run?.snapshotId && m === beforeMarker) end = 'killed → rolled back → offsets of before';
      else if (recovery === 'rollback' && !run?.snapshotId && m === target) end = 'killed before the snapshot → rollback refused → resumed → completed';
    } else if (r.status === 0) {
      await cluster.waitRunning(source.name);
      if ((await marker()) === target) end = 'completed';
    } else if (r.status === 1) {
      await waitFor('RUNNING', async () => (await cluster.status(source.name)).connector.state === 'RUNNING', 120_000, 500).catch(() => undefined);
      const s = (await cluster.status(source.name)).connector.state;
      if ((await marker()) === beforeMarker && s === 'RUNNING' && /The connector is now RUNNING/.test(r.stderr)) end = 'failed → recovered → offsets of before';
    }
    if (end === 'undocumented') {
      summary.undocumented++;
      t.diagnostic(`undocumented: ${op} with ${fault} ${JSON.stringify(env)}: exit ${r.status} ${r.signal ?? ''}\n${r.stderr.slice(-1500)}`);
    }
    summary.endStates[end] = (summary.endStates[end] ?? 0) + 1;
    await p1.close().catch(() => undefined);
    await p2.close();
  }
  t.diagnostic(`chaos summary: ${JSON.stringify(summary)} in ${Math.round((Date.now() - started) / 1000)} s`);
  assert.ok(summary.runs > 0);
  assert.equal(summary.snapshotsFound, summary.snapshotsWritten, 'snapshots lost');
  assert.equal(summary.undocumented, 0, 'undocumented end states');
});
