// A Connect worker dies (SIGKILL) in the middle of a rewind: the one offsetctl talks to, the
// group's leader, the one running the connector's task. With `--url w1,w2` the run completes
// through the other worker (connection errors fail over; a survivor's 500 "IO Error trying to
// forward REST request" to the dead leader is retried until a new leader is known); the branch for
// a run that stops checks that its account is exact. Afterwards
// the worker is restarted (a rebalance: a worker joins during the next run). docs/reliability.md,
// "Workers that die". Kills sandbox workers, so it runs only with OFFSETCTL_FAULTS_WORKERS=1 and
// on a sandbox of its own (never a shared one): `OFFSETCTL_FAULTS_WORKERS=1 node --test dist/test/integration/faults-workers.test.js`.
// Real parts: the sandbox's Kafka broker and Connect cluster, a SQLite store file, spawns the CLI.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { runCli, type CliResult } from '../support/cli.js';
import { ConnectFixture, connectFixture, tempDir, waitFor } from '../support/connect.js';
import { killSandboxWorker, laneCluster, parseWorkerRole, restartSandboxWorker, sandboxLayout, resolveSandboxDir } from '../../src/sandbox/index.js';
import { testLane } from '../support/sandbox.js';
import { readState } from '../../src/sandbox/state.js';

const enabled = process.env.OFFSETCTL_FAULTS_WORKERS === '1';
let cluster: ConnectFixture;
let source: { name: string; file: string };
const dir = resolveSandboxDir();

function workers(): Array<{ role: string; url: string; log: string }> {
  const state = readState(sandboxLayout(dir).stateFile);
  // This test lane's cluster's workers only (a sandbox may run others: second, lane-2 …).
  return (state?.processes ?? []).filter((p) => parseWorkerRole(p.role)?.cluster === laneCluster(testLane()))
    .map((p) => ({ role: p.role, url: `http://127.0.0.1:${p.port}`, log: p.log }));
}

function leaderUrl(): string | undefined {
  let last: string | undefined;
  for (const w of workers()) {
    for (const m of readFileSync(w.log, 'utf8').matchAll(/leaderUrl='(http:\/\/[^']+?)\/?'/g)) last = m[1];
  }
  return last;
}

before(async () => {
  if (!enabled) return;
  cluster = await connectFixture();
  source = await cluster.createSource(5);
});
after(async () => cluster?.cleanup());

const victims = ['the worker offsetctl talks to', 'the leader', 'the worker running the task'] as const;

for (const [i, victim] of victims.entries()) {
  test(`kill ${victim} mid-rewind: the run completes through the other worker`, { skip: !enabled && 'set OFFSETCTL_FAULTS_WORKERS=1 (kills sandbox workers)' }, async (t) => {
    const all = workers();
    assert.ok(all.length >= 2, 'needs a sandbox with 2 workers');
    await cluster.waitRunning(source.name);
    let target: string;
    if (victim === 'the leader') target = leaderUrl() ?? all[0]!.url;
    else if (victim === 'the worker running the task') {
      const status = await cluster.status(source.name) as { tasks: Array<{ worker_id?: string }> };
      target = `http://${status.tasks[0]?.worker_id ?? ''}`;
    } else target = all[0]!.url;
    const leaderAtStart = leaderUrl();
    const taskAtStart = `http://${((await cluster.status(source.name)) as { tasks: Array<{ worker_id?: string }> }).tasks[0]?.worker_id ?? ''}`;
    const dead = all.find((w) => w.url === target) ?? all[0]!;
    const alive = all.find((w) => w !== dead)!;
    // offsetctl is pointed at the victim first only when it is "the worker it talks to".
    const urls = victim === 'the worker offsetctl talks to' ? [dead.url, alive.url] : [alive.url, dead.url];
    const state = tempDir('offsetctl-workerdies-');
    const position = 20 + i;
    const run = runCli(['rewind', source.name, '--offsets', '-', '--yes', '--url', urls.join(','), '--state-dir', state, '--output', 'json'], {
      stdin: JSON.stringify({ offsets: [{ partition: { filename: join(cluster.dir, 'marker.txt') }, offset: { position } }] }),
      env: { OFFSETCTL_TEST_PAUSE_BEFORE_STEP: 'rewindOffsets', OFFSETCTL_TEST_PAUSE_MS: '4000' },
    });
    // Kill once the snapshot is stored and the run waits before its PATCH. A run that ends
    // before it gets there (a refusal in pre-flight) fails the test with its own account.
    let ended: CliResult | undefined;
    void run.then((r) => (ended = r));
    const reached = await waitFor('the run to reach its change step', async () => {
      const r = await runCli(['runs', '--state-dir', state, '--output', 'json']);
      const runs = r.status === 0 ? JSON.parse(r.stdout) as Array<{ lastStep?: string }> : [];
      if (runs[0]?.lastStep === 'captureOffsets') return 'reached';
      return ended === undefined ? undefined : 'ended';
    }, 120_000, 200);
    assert.equal(reached, 'reached', `the run ended before its change step (exit ${ended?.status}): ${ended?.stdout}\n${ended?.stderr}`);
    await killSandboxWorker({ dir, role: dead.role });
    const result = await run;
    const outcome = JSON.parse(result.stdout) as { status: string; message: string; connectorState?: string; runId: string };
    t.diagnostic(`exit ${result.status}: ${outcome.message}`);
    const shown = JSON.parse((await runCli(['runs', 'show', outcome.runId, '--state-dir', state, '--output', 'json'])).stdout) as { status: string; events: Array<{ type: string; detail: { worker?: string; retries?: string; status?: number } }> };
    const retried = shown.events.filter((e) => e.detail.retries !== undefined);
    t.diagnostic(`leader ${leaderAtStart ?? '?'}, task on ${taskAtStart ?? '?'}, killed ${dead.url}; answers after forward retries: ${retried.map((e) => `${e.detail.status} (${e.detail.retries})`).join(' | ') || 'none'}`);
    if (result.status === 0) {
      assert.equal(outcome.status, 'succeeded');
      assert.equal(shown.status, 'succeeded');
      const served = shown.events.filter((e) => e.type === 'response.received').map((e) => e.detail.worker);
      assert.ok(served.at(-1) === alive.url, `the last steps were served by the live worker (${served.join(', ')})`);
      const entry = (await new ConnectFixture(alive.url).offsets(source.name)).offsets.find((o) => o.partition.filename === join(cluster.dir, 'marker.txt'));
      assert.deepEqual(entry?.offset, { position });
    } else {
      // Stopped: the account names the step, what recovery did and the connector's state.
      assert.equal(result.status, 1, result.stderr);
      assert.equal(shown.status, 'failed');
      assert.match(outcome.message, /failed at step \w+/);
      assert.match(outcome.message, /The connector is now/);
      const now = await new ConnectFixture(alive.url).status(source.name);
      assert.ok(outcome.message.includes(now.connector.state), `the account names the state Connect reports (${now.connector.state})`);
    }
    await restartSandboxWorker({ dir, role: dead.role });
    if (result.status !== 0) {
      // The documented way out of a stopped run: rollback (it takes over the run's lock).
      const rolled = await runCli(['rollback', source.name, '--yes', '--url', urls.join(','), '--state-dir', state]);
      t.diagnostic(`rollback: exit ${rolled.status}: ${rolled.stdout}${rolled.stderr}`);
    }
    // Back to two members: the connector and its task run again.
    await waitFor('the connector RUNNING again after the worker rejoined', async () => {
      const s = await new ConnectFixture(alive.url).status(source.name);
      return s.connector.state === 'RUNNING' && s.tasks.every((t) => t.state === 'RUNNING');
    }, 120_000, 500);
    await sleep(1000);
    // Connect's 500 "IO Error trying to forward REST request" (a worker forwarding to the dead
    // leader) is retried until the group has a new leader (src/http/forward-retry.ts), so every
    // case completes; before that retry the third case stopped with an exact account (checked
    // above, after the worker was back so the next case can run).
    assert.equal(result.status, 0, `the run completes through the surviving worker: ${outcome.message}\n${result.stderr}`);
  });
}
