// Two console replicas on one team store (PostgreSQL), as behind a load balancer: a session made
// on A works on B (sessions live in the store); a job started on A is listed and shown on B (its
// state is written there); A killed with kill -9 mid-job, B takes the run over once A's lease has
// passed and finishes it, and B's banner says so.
// Real parts: the sandbox's Kafka broker and Connect cluster, a real PostgreSQL, Chromium, a SQLite store file.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { numberedLines, sandboxRest, startPipeline, tempDir, type ConnectRest, type FilePipeline } from '../support/connect.js';
import { newDatabase, type TestDatabase } from '../support/postgres.js';
import { signInByLink } from '../support/console-http.js';
import { startUi, type RunningUi } from '../web/browser.js';

let rest: ConnectRest;
let pipeline: FilePipeline;
let db: TestDatabase;
const started: RunningUi[] = [];

before(async () => {
  rest = await sandboxRest();
  pipeline = await startPipeline(rest, 'uirep', numberedLines('uirep', 3), { withSink: false });
  db = await newDatabase('uirep');
});

after(async () => {
  for (const ui of started) await ui.stop();
  await pipeline?.remove();
});

async function replica(env: NodeJS.ProcessEnv = {}): Promise<RunningUi> {
  const stateDir = tempDir('uirep-state');
  const ui = await startUi(['--url', rest.baseUrl, '--store', db.url, '--state-dir', stateDir], {
    PGPASSWORD: db.owner.password, OFFSETCTL_STORE: undefined, OFFSETCTL_CONFIG: join(stateDir, 'no-config.yaml'), OFFSETCTL_BOOTSTRAP: '',
    OFFSETCTL_STORE_LEASE_SECONDS: '3', OFFSETCTL_UI_RECOVERY_SECONDS: '1', ...env,
  });
  started.push(ui);
  return ui;
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

test('two consoles on one team store share sessions and jobs, and one takes over the job of the other killed mid-way', { timeout: 240_000 }, async () => {
  const a = await replica({ OFFSETCTL_TEST_PAUSE_BEFORE_STEP: 'rewindOffsets', OFFSETCTL_TEST_RELEASE_FILE: join(tempDir('uirep-never'), 'never') });
  const b = await replica();
  const onA = await signInByLink(a.loginUrl);
  const onB = onA.at(b.base);
  const page = await onB.get('/connectors');
  assert.equal(page.status, 200, 'the session cookie made on A works on B');

  const target = [{ partition: { filename: join(tempDir('uirep-other'), 'elsewhere.txt') }, offset: { position: 7 } }];
  const jobPath = await onA.rewind(pipeline.source, target);
  await until('the job to hold before rewindOffsets', async () => (/captureOffsets passed/.test((await onA.get(jobPath)).text) ? true : undefined));
  const listed = await onB.get('/jobs');
  assert.equal(listed.status, 200);
  assert.ok(listed.text.includes(`href="${jobPath}"`) && listed.text.includes(`rewind of ${pipeline.source}`), 'the job started on A is listed on B');
  const shown = await onB.get(jobPath);
  assert.equal(shown.status, 200);
  assert.match(shown.text, /captureOffsets passed/, 'B shows the steps A recorded');

  a.child.kill('SIGKILL');
  await new Promise((resolve) => a.child.once('exit', resolve));
  assert.equal((await rest.status(pipeline.source)).connector.state, 'STOPPED', 'A died with the connector stopped');
  const banner = await until('B to take the run over and finish it', async () => {
    const text = (await onB.get('/connectors')).text;
    return /Interrupted run \S+ \(rewind of [^)]+\)[^<]*: finished\./.test(text) ? text : undefined;
  });
  assert.match(banner, /role="status"/);
  await rest.waitForRunning(pipeline.source);
  const { offsets } = await rest.offsets(pipeline.source);
  assert.deepEqual(offsets.find((o) => o.partition['filename'] === target[0]!.partition.filename)?.offset, { position: 7 }, 'B finished the rewind');
  assert.match(b.output(), /interrupted run \S+ \(rewind of [^)]+\): finishing the rewind/);
});
