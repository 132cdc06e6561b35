// offsetctl killed (SIGKILL) at every step boundary of rewind, reset and rollback, and in the
// middle of the change request (OFFSETCTL_TEST_KILL_AFTER_SEND: Connect made the change, the
// answer never arrived). After each kill: the snapshot is intact (count and content), `runs show`
// tells the truth, and both `runs resume` and `rollback` bring the connector to the documented end
// state (docs/reliability.md, "Kill points"). Every case writes one row to the results file the
// docs table is made from (OFFSETCTL_FAULTS_REPORT, default a temp file).
// OFFSETCTL_FAULTS=full runs every kill point (66 cases); the default (CI) the 12 around the change.
// Real parts: the sandbox's Kafka broker and Connect cluster, a SQLite store file, spawns the CLI.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { runCli } from '../support/cli.js';
import { type ConnectFixture, connectFixture, tempDir, waitFor } from '../support/connect.js';

type Op = 'rewind' | 'reset' | 'rollback';
type Recovery = 'resume' | 'rollback';
interface Point { op: Op; kill: string; recovery: Recovery }

const STEPS: Record<Op, { snapshot: string; change: string; verify: string; method: string }> = {
  rewind: { snapshot: 'captureOffsets', change: 'rewindOffsets', verify: 'verifyOffsets', method: 'PATCH' },
  reset: { snapshot: 'snapshotOffsets', change: 'resetOffsets', verify: 'confirmCleared', method: 'DELETE' },
  rollback: { snapshot: 'captureOffsets', change: 'restoreOffsets', verify: 'verifyOffsets', method: 'PATCH' },
};
const AFTER_SEND = 'after-send';

/** The steps a RUNNING connector passes through, in order, with the mid-request point after the change step. */
function killPoints(op: Op): string[] {
  const s = STEPS[op];
  return ['readInitialState', 'stopConnector', 'waitForStopped', s.snapshot, s.change, AFTER_SEND, s.verify, 'decideFinalState', 'resumeConnector', 'waitForRunning', 'readFinalState'];
}
// CI: the two points around the change request (about 19 s per case on the 2-core machine).
const QUICK = new Set(['change', AFTER_SEND]);

const full = process.env.OFFSETCTL_FAULTS === 'full';
const report = process.env.OFFSETCTL_FAULTS_REPORT ?? join(tempDir('offsetctl-faults-'), 'kill-points.jsonl');
const points: Point[] = [];
for (const op of ['rewind', 'reset', 'rollback'] as const) {
  for (const kill of killPoints(op)) {
    const role = kill === STEPS[op].change ? 'change' : kill === STEPS[op].verify ? 'verify' : kill;
    if (!full && !QUICK.has(role)) continue;
    for (const recovery of ['resume', 'rollback'] as const) points.push({ op, kill, recovery });
  }
}

let cluster: ConnectFixture;
let source: { name: string; file: string };
let mainPosition: number;
let other: { filename: string };

before(async () => {
  cluster = await connectFixture();
  source = await cluster.createSource(5);
  mainPosition = Number(((await cluster.offsets(source.name)).offsets[0]!.offset as { position: number }).position);
  other = { filename: join(cluster.dir, 'not-read-by-the-connector.txt') };
  writeFileSync(report, '');
});
after(async () => cluster?.cleanup());

/** Puts the connector RUNNING with the main file fully read and the marker partition at `position`, by plain REST calls. */
async function setMarker(position: number): Promise<void> {
  const path = `/connectors/${encodeURIComponent(source.name)}`;
  await cluster.request('PUT', `${path}/stop`);
  await waitFor('STOPPED', async () => (await cluster.status(source.name)).connector.state === 'STOPPED');
  for (let attempt = 0; ; attempt++) {
    const res = await cluster.request('PATCH', `${path}/offsets`, { offsets: [{ partition: { filename: source.file }, offset: { position: mainPosition } }, { partition: other, offset: { position } }] });
    if (res.status === 200) break;
    if (attempt > 20) throw new Error(`PATCH offsets: ${res.status} ${JSON.stringify(res.body)}`);
    await sleep(500);
  }
  await cluster.request('PUT', `${path}/resume`);
  await cluster.waitRunning(source.name);
}

async function marker(): Promise<number | null> {
  const entry = (await cluster.offsets(source.name)).offsets.find((o) => o.partition.filename === other.filename);
  return entry?.offset ? Number((entry.offset as { position: number }).position) : null;
}

async function json<T>(args: string[]): Promise<T> {
  const r = await runCli([...args, '--output', 'json']);
  assert.equal(r.status, 0, `${args.join(' ')}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

interface RunRow { id: string; status: string; lastStep?: string; snapshotId?: string; operation: string; connectorState?: string }
interface SnapshotRow { id: string; partitions: number; runId?: string; offsets: Array<{ partition: { filename?: string }; offset: { position?: number } | null }> }

for (const point of points) {
  test(`kill ${point.op} at ${point.kill}, then ${point.recovery}`, async () => {
    const stateDir = tempDir('offsetctl-kill-');
    const conn = ['--url', cluster.url, '--state-dir', stateDir];
    const s = STEPS[point.op];
    const order = killPoints(point.op);
    // Baseline: marker 3. Target of the operation: rewind → 7, reset → gone, rollback → 5 (the snapshot of an earlier rewind).
    let command: string[];
    let input: string | undefined;
    let target: number | null;
    if (point.op === 'rollback') {
      await setMarker(5);
      const earlier = await runCli(['rewind', source.name, '--offsets', '-', '--yes', ...conn], { stdin: JSON.stringify({ offsets: [{ partition: other, offset: { position: 3 } }] }) });
      assert.equal(earlier.status, 0, earlier.stderr);
      await cluster.waitRunning(source.name);
      command = ['rollback', source.name, '--yes', ...conn];
      target = 5;
    } else {
      await setMarker(3);
      command = point.op === 'rewind' ? ['rewind', source.name, '--offsets', '-', '--yes', ...conn] : ['reset', source.name, '--yes', ...conn];
      input = point.op === 'rewind' ? JSON.stringify({ offsets: [{ partition: other, offset: { position: 7 } }] }) : undefined;
      target = point.op === 'rewind' ? 7 : null;
    }
    const snapshotsBefore = (await json<SnapshotRow[]>(['snapshots', source.name, '--state-dir', stateDir])).length;

    const env: Record<string, string> = point.kill === AFTER_SEND ? { OFFSETCTL_TEST_KILL_AFTER_SEND: s.method } : { OFFSETCTL_TEST_KILL_BEFORE_STEP: point.kill };
    const killed = await runCli(command, { env, ...(input !== undefined ? { stdin: input } : {}) });
    assert.equal(killed.signal, 'SIGKILL', `the hook fired: ${killed.stderr}`);
    const stateAfterKill = (await cluster.status(source.name)).connector.state;

    // runs show: interrupted, last finished step = the one before the kill point.
    const run = (await json<RunRow[]>(['runs', '--connector', source.name, '--state-dir', stateDir]))[0]!;
    assert.equal(run.operation, point.op);
    assert.equal(run.status, 'interrupted');
    const killIndex = point.kill === AFTER_SEND ? order.indexOf(s.change) : order.indexOf(point.kill);
    const expectedLast = order.slice(0, killIndex).filter((step) => step !== AFTER_SEND).at(-1);
    assert.equal(run.lastStep, expectedLast, 'runs show names the last finished step');
    const shown = await runCli(['runs', 'show', run.id, '--state-dir', stateDir]);
    assert.match(shown.stdout, /interrupted/);
    if (point.kill === AFTER_SEND) assert.match(shown.stdout, new RegExp(`request.sent ${s.change} ${s.method} `), 'the journal shows the change request went out');

    // The snapshot: stored exactly when the kill came after the snapshot step, with the baseline content.
    const snapshotStored = killIndex > order.indexOf(s.snapshot);
    const snapshots = await json<SnapshotRow[]>(['snapshots', source.name, '--state-dir', stateDir]);
    assert.equal(snapshots.length, snapshotsBefore + (snapshotStored ? 1 : 0), 'one snapshot per run that reached its snapshot step');
    if (snapshotStored) {
      assert.equal(run.snapshotId, snapshots[0]!.id);
      const snap = await json<SnapshotRow>(['snapshots', 'show', run.snapshotId!, '--state-dir', stateDir]);
      assert.equal(snap.partitions, 2);
      assert.equal(snap.offsets.length, 2);
      assert.equal(snap.offsets.find((o) => o.partition.filename === other.filename)?.offset?.position, 3, 'the snapshot holds the offsets of before');
      assert.equal(snap.offsets.find((o) => o.partition.filename === source.file)?.offset?.position, mainPosition);
    }

    let outcome: string;
    if (point.recovery === 'resume') {
      const resumed = await runCli(['runs', 'resume', run.id, '--yes', ...conn]);
      assert.equal(resumed.status, 0, resumed.stderr);
      await cluster.waitRunning(source.name);
      assert.equal(await marker(), target, 'resume finished the operation');
      outcome = `resume: exit 0, ${point.op} completed, RUNNING`;
    } else {
      const rolled = await runCli(['rollback', source.name, '--yes', ...conn]);
      if (snapshotStored || point.op === 'rollback') {
        assert.equal(rolled.status, 0, rolled.stderr);
        await cluster.waitRunning(source.name);
        // A rollback killed before its own snapshot: the latest snapshot is still the one it was restoring.
        const expected = snapshotStored ? 3 : target;
        assert.equal(await marker(), expected);
        outcome = snapshotStored ? 'rollback: exit 0, offsets of before restored, RUNNING' : 'rollback: exit 0, the interrupted rollback\'s own target restored, RUNNING';
        const runs = await json<RunRow[]>(['runs', '--connector', source.name, '--state-dir', stateDir]);
        assert.equal(runs.find((r) => r.id === run.id)?.status, 'abandoned', 'the interrupted run is marked abandoned');
      } else {
        // No snapshot of this run: nothing of it to roll back (an older snapshot is never taken instead).
        assert.equal(rolled.status, 2, rolled.stderr);
        assert.match(rolled.stderr, /nothing of it to roll back/);
        assert.equal(await marker(), 3, 'offsets were never changed');
        const resumed = await runCli(['runs', 'resume', run.id, '--yes', ...conn]);
        assert.equal(resumed.status, 0, resumed.stderr);
        await cluster.waitRunning(source.name);
        assert.equal(await marker(), target);
        outcome = 'rollback: exit 2 "nothing of it to roll back" (offsets untouched); runs resume then completes, RUNNING';
      }
    }
    appendFileSync(report, JSON.stringify({ ...point, stateAfterKill, lastStep: run.lastStep ?? null, snapshot: snapshotStored, outcome }) + '\n');
  });
}
