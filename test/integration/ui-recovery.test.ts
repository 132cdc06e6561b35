// Crash recovery of the console (one person's console, SQLite state): a console killed with
// kill -9 mid-job leaves its run interrupted and the connector STOPPED; the console started
// again finds the run it owned, finishes it (the connector ends as the job asked, RUNNING), logs
// it and says so in a banner. A console stopped with SIGTERM mid-job cancels the job (after its
// drain bound) and the run says "cancelled: the console shut down", not "cancelled by you".
// Real parts: the sandbox's Kafka broker and Connect cluster, Chromium, a SQLite store file, spawns the CLI.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { numberedLines, sandboxRest, startPipeline, tempDir, type ConnectRest, type FilePipeline } from '../support/connect.js';
import { runCli } from '../support/cli.js';
import { signInByLink, type ConsoleUser } from '../support/console-http.js';
import { startUi, type RunningUi } from '../web/browser.js';

let rest: ConnectRest;
let pipeline: FilePipeline;
const started: RunningUi[] = [];

before(async () => {
  rest = await sandboxRest();
  pipeline = await startPipeline(rest, 'uirec', numberedLines('uirec', 3), { withSink: false });
});

after(async () => {
  for (const ui of started) await ui.stop();
  await pipeline?.remove();
});

async function console(stateDir: string, env: NodeJS.ProcessEnv = {}): Promise<{ ui: RunningUi; user: ConsoleUser }> {
  const ui = await startUi(['--url', rest.baseUrl, '--state-dir', stateDir], { OFFSETCTL_CONFIG: join(stateDir, 'no-config.yaml'), OFFSETCTL_BOOTSTRAP: '', ...env });
  started.push(ui);
  return { ui, user: await signInByLink(ui.loginUrl) };
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 90_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

/** A partition the source does not read: the pipeline is not disturbed. */
function elsewhere(name: string): Array<{ partition: Record<string, string>; offset: Record<string, number> }> {
  return [{ partition: { filename: join(tempDir(`uirec-${name}`), 'elsewhere.txt') }, offset: { position: 7 } }];
}

test('a console killed mid-job: started again, it finishes the run it owned, and its banner says so', { timeout: 240_000 }, async () => {
  const stateDir = tempDir('uirec-kill');
  const pause = { OFFSETCTL_TEST_PAUSE_BEFORE_STEP: 'rewindOffsets', OFFSETCTL_TEST_RELEASE_FILE: join(stateDir, 'never') };
  const a = await console(stateDir, pause);
  const target = elsewhere('kill');
  const jobPath = await a.user.rewind(pipeline.source, target);
  await until('the job to hold before rewindOffsets', async () => (/captureOffsets passed/.test((await a.user.get(jobPath)).text) ? true : undefined));
  assert.equal((await rest.status(pipeline.source)).connector.state, 'STOPPED');
  a.ui.child.kill('SIGKILL');
  await new Promise((resolve) => a.ui.child.once('exit', resolve));
  assert.equal((await rest.status(pipeline.source)).connector.state, 'STOPPED', 'the killed console left the connector stopped');

  const b = await console(stateDir);
  const banner = await until('the banner to say the run finished', async () => {
    const text = (await b.user.get('/connectors')).text;
    return /Interrupted run \S+ \(rewind of [^)]+\)[^<]*: finished\./.test(text) ? text : undefined;
  });
  assert.match(banner, /class="notice recovery" role="status"/);
  await rest.waitForRunning(pipeline.source);
  const { offsets } = await rest.offsets(pipeline.source);
  assert.deepEqual(offsets.find((o) => o.partition['filename'] === target[0]!.partition['filename'])?.offset, { position: 7 }, 'the rewind was finished');
  assert.match(b.ui.output(), /interrupted run \S+ \(rewind of [^)]+\): finishing the rewind/, 'the recovery is logged');
  const runs = await runCli(['runs', '--connector', pipeline.source, '--state-dir', stateDir, '-o', 'json']);
  assert.equal(runs.status, 0, runs.stderr);
  const [run] = JSON.parse(runs.stdout) as Array<{ status: string; resumedBy?: unknown }>;
  assert.equal(run?.status, 'succeeded', runs.stdout);
});

test('a console stopped with SIGTERM mid-job: the job is cancelled "because the console shut down" and the connector is back', { timeout: 240_000 }, async () => {
  const stateDir = tempDir('uirec-term');
  const release = join(stateDir, 'release');
  const a = await console(stateDir, { OFFSETCTL_TEST_PAUSE_BEFORE_STEP: 'rewindOffsets', OFFSETCTL_TEST_RELEASE_FILE: release, OFFSETCTL_UI_DRAIN_SECONDS: '1' });
  const jobPath = await a.user.rewind(pipeline.source, elsewhere('term'));
  await until('the job to hold before rewindOffsets', async () => (/captureOffsets passed/.test((await a.user.get(jobPath)).text) ? true : undefined));
  const exited = new Promise((resolve) => a.ui.child.once('exit', resolve));
  a.ui.child.kill('SIGTERM');
  // Past the drain bound the job is cancelled; the paused step then sees it.
  await sleep(2_000);
  writeFileSync(release, '');
  await exited;
  await rest.waitForRunning(pipeline.source);
  const runs = await runCli(['runs', '--connector', pipeline.source, '--state-dir', stateDir, '-o', 'json']);
  const [run] = JSON.parse(runs.stdout) as Array<{ id: string; status: string }>;
  const shown = await runCli(['runs', 'show', run!.id, '--state-dir', stateDir]);
  assert.match(shown.stdout, /was cancelled: the console shut down, during step rewindOffsets/, shown.stdout);
  assert.doesNotMatch(shown.stdout, /cancelled by you/);
  assert.equal(run?.status, 'failed');
});
