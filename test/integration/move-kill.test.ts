// A move killed (SIGKILL) before each step of the move workflow, and once right after Kafka
// Connect answered its create (the answer lost): after every kill the two copies do not both run,
// `runs` shows the run interrupted; then, separately, `runs resume` finishes the move (the
// connector runs on the new cluster with its offsets) and `rollback` undoes it (it runs again on
// the old cluster with its offsets). One FileStreamSource goes back and forth between the
// sandbox's two clusters; its offsets carry a marker partition it never reads (position 3), so
// "with its offsets" is checked exactly. OFFSETCTL_FAULTS=full runs every step (34 cases); CI
// the points around the create (before it, and its answer lost), the offsets write and the final
// resume (8 cases).
// Real parts: the sandbox's Kafka broker and Connect cluster, a SQLite store file, spawns the CLI.
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { tempDir, uniqueName, waitFor } from '../support/connect.js';
import type { ConnectRest } from '../support/connect.js';
import { moveCli, moveStateDir, twoClusters, type TwoClusters } from '../support/move.js';

const STEPS = [
  'readInitialState', 'stopConnector', 'waitForStopped', 'captureOffsets', 'createTarget', 'after-send-POST', 'waitForTargetStopped', 'captureTargetOffsets',
  'writeCapturedOffsets', 'verifyTargetOffsets', 'retireSource', 'deleteSource', 'confirmSourceDeleted', 'decideFinalState', 'resumeConnector', 'waitForRunning', 'readFinalState',
];
const QUICK = new Set(['createTarget', 'after-send-POST', 'writeCapturedOffsets', 'resumeConnector']);
const full = process.env.OFFSETCTL_FAULTS === 'full';
const points = STEPS.filter((s) => full || QUICK.has(s)).flatMap((kill) => (['resume', 'rollback'] as const).map((recovery) => ({ kill, recovery })));

let clusters: TwoClusters;
let cli: ReturnType<typeof moveCli>;
let name: string;
let file: string;
const marker = { filename: '/offsetctl-move-kill-marker' };
/** Where the connector is now. */
let at: 'main' | 'second' = 'main';

before(async () => {
  clusters = await twoClusters();
  cli = moveCli(moveStateDir('move-kill'));
  name = uniqueName('move-kill');
  file = join(tempDir('offsetctl-move-kill-'), 'in.txt');
  writeFileSync(file, 'a\nb\nc\n');
  await clusters.main.createConnector(name, { 'connector.class': 'org.apache.kafka.connect.file.FileStreamSourceConnector', 'tasks.max': '1', file, topic: `${name}-topic` }, 'STOPPED');
  await clusters.main.waitForStopped(name);
  await clusters.main.expect('PATCH', `/connectors/${name}/offsets`, [200], { offsets: [{ partition: marker, offset: { position: 3 } }, { partition: { filename: file }, offset: { position: 6 } }] });
  await clusters.main.resume(name);
  await clusters.main.waitForRunning(name);
});

after(async () => {
  for (const rest of [clusters?.main, clusters?.second]) if (rest && name) await rest.deleteConnector(name).catch(() => undefined);
});

const rest = (where: 'main' | 'second'): ConnectRest => (where === 'main' ? clusters.main : clusters.second);
const urls = (where: 'main' | 'second'): string => (where === 'main' ? clusters.mainUrls : clusters.secondUrls);
const other = (where: 'main' | 'second'): 'main' | 'second' => (where === 'main' ? 'second' : 'main');

async function stateOn(where: 'main' | 'second'): Promise<string | undefined> {
  const r = await rest(where).request('GET', `/connectors/${name}/status`);
  return r.status === 200 ? (r.body as { connector: { state: string } }).connector.state : undefined;
}

/** Ends RUNNING on `where` only, with the marker and the file's position, none of it left on the other cluster. */
async function assertOnlyOn(where: 'main' | 'second', what: string): Promise<void> {
  await rest(where).waitForRunning(name, 1, 90_000);
  assert.equal((await rest(other(where)).request('GET', `/connectors/${name}`)).status, 404, `${what}: nothing of it on ${other(where)}`);
  const offsets = (await rest(where).offsets(name)).offsets;
  const byFile = new Map(offsets.map((o) => [String(o.partition['filename']), o.offset?.['position']]));
  assert.equal(byFile.get(marker.filename), 3, `${what}: the marker offset came along: ${JSON.stringify(offsets)}`);
  assert.equal(byFile.get(file), 6, `${what}: the file's position: ${JSON.stringify(offsets)}`);
}

for (const { kill, recovery } of points) {
  test(`killed ${kill === 'after-send-POST' ? 'after the create was answered' : `before ${kill}`}, then ${recovery === 'resume' ? 'runs resume' : 'rollback'}`, { timeout: 400_000 }, async () => {
    const from = at;
    const to = other(from);
    const env = kill === 'after-send-POST' ? { OFFSETCTL_TEST_KILL_AFTER_SEND: 'POST' } : { OFFSETCTL_TEST_KILL_BEFORE_STEP: kill };
    const killed = await cli(['move', name, '--url', urls(from), '--to', urls(to), '--yes'], { env });
    assert.equal(killed.signal, 'SIGKILL', `the hook killed it: ${killed.stderr.slice(-2000)}`);
    // Never both running at once.
    const states = [await stateOn(from), await stateOn(to)];
    assert.ok(!(states[0] === 'RUNNING' && states[1] === 'RUNNING'), `both copies run after the kill: ${states.join(', ')}`);
    const runs = JSON.parse((await cli(['runs', '--connector', name, '-o', 'json'])).stdout) as Array<{ id: string; operation: string; status: string }>;
    const run = runs.find((r) => r.operation === 'move');
    assert.equal(run?.status, 'interrupted', JSON.stringify(runs.slice(0, 3)));

    if (recovery === 'resume') {
      const r = await cli(['runs', 'resume', run!.id, '--url', urls(from), '--to', urls(to), '--yes']);
      assert.equal(r.status, 0, r.stderr.slice(-3000) + r.stdout);
      if (kill === 'after-send-POST') {
        // The create had been made: the resume finds it there and goes on (issue 30, point 16), no ✗.
        assert.match(r.stderr, /↷ createTarget: handled by replaceExistingTarget, on to stopExistingTarget \(ok\)/);
        assert.doesNotMatch(r.stderr, /✗ createTarget/);
      }
      await assertOnlyOn(to, 'after runs resume');
      at = to;
    } else {
      // The dry run says where each copy is and in which state, not twice "is on" (issue 30, point 17).
      const dry = await cli(['rollback', name, '--url', urls(from), '--to', urls(to), '--dry-run']);
      assert.equal(dry.status, 0, dry.stderr + dry.stdout);
      const [fromState, toState] = [await stateOn(from), await stateOn(to)];
      const said = (state: string | undefined, url: string, role: string): RegExp =>
        new RegExp(`${name} is ${state ? `${state} on ${url.split(',')[0]}` : `not on ${url.split(',')[0]}`} \\(${role}\\)`);
      assert.match(dry.stdout, said(fromState, urls(from), 'the original'));
      assert.match(dry.stdout, said(toState, urls(to), "the move's copy"));
      const r = await cli(['rollback', name, '--url', urls(from), '--to', urls(to), '--yes']);
      assert.equal(r.status, 0, r.stderr.slice(-3000) + r.stdout);
      assert.match(r.stdout, /undone/);
      await assertOnlyOn(from, 'after rollback');
      at = from;
    }
    const after = JSON.parse((await cli(['runs', '--connector', name, '-o', 'json'])).stdout) as Array<{ id: string; status: string }>;
    assert.ok(!after.some((x) => x.status === 'interrupted' || x.status === 'running'), `no run is left interrupted: ${JSON.stringify(after.slice(0, 4))}`);
    await waitFor('the connector to be listed where it is', async () => (await rest(at).listConnectors()).includes(name));
  });
}
