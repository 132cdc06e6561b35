// Issue 20, points 3 and 5 on the sandbox: runs interrupted at the worst moments must leave the
// operator a way out that the tool itself offers.
// 3. Ctrl-C twice, 0.3 s apart: before the fix the second one ended offsetctl at once (exit 130,
//    no message) in the middle of its recovery; rollback then said "nothing to roll back; finish
//    with runs resume", runs resume said "use rollback instead", and every rewind was refused as
//    locked. Now the second Ctrl-C says what state the connector is in and which commands act on
//    the run; runs resume finishes the recovery; and `runs abandon <id>` frees a run's lock
//    without changing any offset, after showing the connector's live state, recording who
//    abandoned it and why.
// 5. A kill after the stop, then someone resumes the connector by hand: runs resume polled
//    waitForStopped for 66 s and exited 1, the lock kept. Now it reads the live state, says what
//    changed since the kill, and stops the connector again before it goes on.
// Real parts: the sandbox's Kafka broker and Connect cluster, a SQLite store file, spawns the CLI.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { userInfo, hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { runCli } from '../support/cli.js';
import { connectFixture, tempDir, type ConnectFixture } from '../support/connect.js';
import { FaultProxy } from '../support/proxy.js';
import { offsetsFile, runsOf, startCli, until } from './defects-support.js';

let cluster: ConnectFixture;
let source: { name: string; file: string };

before(async () => {
  cluster = await connectFixture();
  source = await cluster.createSource(3);
});
after(async () => cluster?.cleanup());

const position = async (): Promise<unknown> => (await cluster.offsets(source.name)).offsets.find((o) => o.partition['filename'] === source.file)?.offset;

/**
 * RUNNING before a test's rewind, whatever an earlier test here left: a failed one leaves it
 * STOPPED, and the next rewind would then rightly end STOPPED, failing that test for another's reason.
 */
async function runningFirst(): Promise<void> {
  if ((await cluster.status(source.name)).connector.state !== 'RUNNING') await cluster.resume(source.name);
  await cluster.waitRunning(source.name);
}

/** Waits until `text` shows up on the child's stderr. */
function stderrShows(child: ReturnType<typeof startCli>['child'], pattern: RegExp, timeoutMs = 120_000): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`stderr never showed ${pattern}: ${seen.slice(-2000)}`)), timeoutMs);
    child.stderr!.on('data', (c: Buffer) => {
      seen += c.toString('utf8');
      if (pattern.test(seen)) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
}

test('3: Ctrl-C twice 0.3 s apart: exit 130 with the connector\'s state and the ways out; runs resume finishes the recovery and frees the lock', async () => {
  const stateDir = tempDir('twice-state');
  const before = await position();
  const target = offsetsFile([{ partition: { filename: source.file }, offset: { position: 1 } }]);
  // Held before the snapshot step long enough for the first Ctrl-C to land there; through a proxy
  // that delays every packet, so the recovery is still going when the second Ctrl-C comes.
  const slow = await FaultProxy.start(cluster.url);
  slow.fault = { kind: 'latency', ms: 250 };
  const run = startCli(['rewind', source.name, '--offsets', target, '--yes', '--url', slow.url, '--state-dir', stateDir], { OFFSETCTL_TEST_PAUSE_BEFORE_STEP: 'captureOffsets', OFFSETCTL_TEST_PAUSE_MS: '1500' });
  await stderrShows(run.child, /✓ waitForStopped/);
  run.child.kill('SIGINT');
  // The recovery has begun (its own workflow): the second Ctrl-C lands in the middle of it.
  await stderrShows(run.child, /workflow restore-connector-offsets/);
  await sleep(300);
  run.child.kill('SIGINT');
  // The slow link has done its part (the second Ctrl-C came mid-recovery); lifted now, so the
  // state read the tool allows itself 3 s for gets through on a loaded machine as well.
  slow.fault = { kind: 'none' };
  const r = await run.done;
  await slow.close();
  assert.equal(r.status, 130, r.stderr.slice(-3000));
  const [interrupted] = await runsOf(stateDir);
  assert.ok(interrupted, 'the run is in the journal');
  assert.equal(interrupted.status, 'interrupted');
  // What the operator is told: the state the connector is in now, and the commands for this run.
  assert.match(r.stderr, new RegExp(`${source.name} is (STOPPED|RUNNING|PAUSED)`), r.stderr.slice(-3000));
  assert.match(r.stderr, new RegExp(`offsetctl runs resume ${interrupted.id}`));
  assert.match(r.stderr, new RegExp(`offsetctl runs abandon ${interrupted.id}`));

  // The tool can act on that journal: resume finishes what was asked last, the recovery.
  const resumed = await runCli(['runs', 'resume', interrupted.id, '--yes', '--url', cluster.url, '--state-dir', stateDir]);
  assert.equal(resumed.status, 0, resumed.stdout + resumed.stderr);
  await cluster.waitRunning(source.name);
  assert.deepEqual(await position(), before, 'the cancelled rewind changed no offset');
  const again = await runCli(['rewind', source.name, '--offsets', target, '--dry-run', '--url', cluster.url, '--state-dir', stateDir]);
  assert.equal(again.status, 0, again.stderr);
  const locked = await runCli(['reset', source.name, '--yes', '--url', cluster.url, '--state-dir', stateDir, '--leave-stopped']);
  assert.doesNotMatch(locked.stderr, /E_LOCKED/, 'the lock is free');
  // Put the source back as the other tests expect it.
  assert.equal((await runCli(['rollback', source.name, '--yes', '--resume', '--url', cluster.url, '--state-dir', stateDir])).status, 0);
  await cluster.waitRunning(source.name);
});

test('3: runs abandon <id> shows the live state, records who and why, frees the lock and changes no offset', async () => {
  const stateDir = tempDir('abandon-state');
  await runningFirst();
  const before = await position();
  const target = offsetsFile([{ partition: { filename: source.file }, offset: { position: 2 } }]);
  const killed = await runCli(['rewind', source.name, '--offsets', target, '--yes', '--url', cluster.url, '--state-dir', stateDir], { env: { OFFSETCTL_TEST_KILL_BEFORE_STEP: 'rewindOffsets' } });
  assert.equal(killed.signal, 'SIGKILL', killed.stderr);
  const [run] = await runsOf(stateDir);
  assert.equal(run?.status, 'interrupted');

  const noReason = await runCli(['runs', 'abandon', run!.id, '--yes', '--url', cluster.url, '--state-dir', stateDir]);
  assert.equal(noReason.status, 2, noReason.stderr);
  assert.match(noReason.stderr, /--reason/);
  const r = await runCli(['runs', 'abandon', run!.id, '--reason', 'checked the offsets by hand', '--yes', '--url', cluster.url, '--state-dir', stateDir]);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, new RegExp(`${source.name} is STOPPED now`), 'the live state is shown first');
  assert.match(r.stdout, new RegExp(`offsetctl resume ${source.name}`), 'and how to bring it back');
  const shown = JSON.parse((await runCli(['runs', 'show', run!.id, '--output', 'json', '--state-dir', stateDir])).stdout) as { status: string; message: string; context: Record<string, unknown> };
  assert.equal(shown.status, 'abandoned');
  const who = `${userInfo().username}@${hostname()}`;
  assert.deepEqual(shown.context['abandoned'] && { by: (shown.context['abandoned'] as { by: string }).by, reason: (shown.context['abandoned'] as { reason: string }).reason }, { by: who, reason: 'checked the offsets by hand' });
  assert.match(shown.message, new RegExp(`abandoned by ${who}: checked the offsets by hand`));
  assert.deepEqual(await position(), before, 'no offset changed');
  assert.equal((await cluster.status(source.name)).connector.state, 'STOPPED', 'abandon leaves the connector as it is');

  // The lock is free: a rewind runs; a finished run cannot be abandoned.
  assert.equal((await runCli(['resume', source.name, '--url', cluster.url])).status, 0);
  await cluster.waitRunning(source.name);
  const next = await runCli(['rewind', source.name, '--offsets', offsetsFile([{ partition: { filename: source.file }, offset: { position: 6 } }]), '--yes', '--url', cluster.url, '--state-dir', stateDir]);
  assert.equal(next.status, 0, next.stderr);
  const finished = await runCli(['runs', 'abandon', run!.id, '--reason', 'again', '--yes', '--url', cluster.url, '--state-dir', stateDir]);
  assert.equal(finished.status, 2, finished.stderr);
  assert.match(finished.stderr, /abandoned|only an interrupted run/);
});

test('5: resumed by hand after a kill: runs resume says what changed since the kill, stops it again and finishes', async () => {
  const stateDir = tempDir('restop-state');
  await runningFirst();
  const target = offsetsFile([{ partition: { filename: source.file }, offset: { position: 3 } }]);
  const killed = await runCli(['rewind', source.name, '--offsets', target, '--yes', '--url', cluster.url, '--state-dir', stateDir], { env: { OFFSETCTL_TEST_KILL_BEFORE_STEP: 'rewindOffsets' } });
  assert.equal(killed.signal, 'SIGKILL', killed.stderr);
  const [run] = await runsOf(stateDir);
  assert.equal((await cluster.status(source.name)).connector.state, 'STOPPED');
  // Someone brings it back meanwhile.
  assert.equal((await cluster.request('PUT', `/connectors/${encodeURIComponent(source.name)}/resume`)).status, 202);
  await cluster.waitRunning(source.name);

  const started = Date.now();
  const r = await runCli(['runs', 'resume', run!.id, '--yes', '--url', cluster.url, '--state-dir', stateDir], { timeoutMs: 180_000 });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout + r.stderr, /since the run was interrupted.*STOPPED.*now RUNNING/s);
  assert.ok(Date.now() - started < 60_000, `resume took ${Date.now() - started} ms (it polled waitForStopped for 66 s before the fix)`);
  await cluster.waitRunning(source.name);
  assert.deepEqual(await position(), { position: 3 }, 'the rewind was finished');
  const after = await until('the run to be recorded', async () => (await runsOf(stateDir)).find((x) => x.id === run!.id && x.status === 'succeeded'));
  assert.ok(after);
});
