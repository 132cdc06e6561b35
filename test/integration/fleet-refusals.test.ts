// Batch refusals happen before anything stops: a selector that matches nothing, and a
// pre-flight refusal of one connector (which refuses the batch, unless --skip-invalid).
// Real parts: the sandbox's Kafka broker and Connect cluster, a SQLite store file, the CLI in-process.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { runInProcess } from '../support/in-process.js';
import { sortedOffsets } from '../support/connect.js';
import { startFleet, type BatchSummaryJson, type Fleet, type FleetSource, type RunJson } from '../support/fleet.js';

let fleet: Fleet;

before(async () => {
  fleet = await startFleet('fleet-refuse', 2);
});
after(async () => fleet?.remove());

async function snapshotCluster(): Promise<unknown> {
  return Promise.all(fleet.sources.map(async (s) => ({ state: (await fleet.cluster.status(s.name)).connector.state, offsets: sortedOffsets(await fleet.cluster.offsets(s.name)) })));
}

async function runsIn(dir: string): Promise<RunJson[]> {
  return JSON.parse((await runInProcess(['runs', '--output', 'json', '--state-dir', dir])).stdout) as RunJson[];
}

test('a --selector that matches nothing is refused (exit 2) naming the regex and existing connectors; nothing changes', async () => {
  const { cluster, prefix, stateDir } = fleet;
  const before = await snapshotCluster();
  const regex = `^${prefix}-nothing-`;
  const r = await runInProcess(['reset', '--selector', regex, '--yes', '--url', cluster.url, '--state-dir', stateDir]);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, new RegExp(`--selector "\\^${prefix}-nothing-" matches no connector`));
  assert.match(r.stderr, /Existing connectors \(\d+\): \S/);
  assert.deepEqual(await snapshotCluster(), before);
  assert.deepEqual(await runsIn(stateDir), []);
});

test('an invalid regex, --snapshot with several connectors and a bad --concurrency are refused with exit 2', async () => {
  const { cluster, sources, stateDir } = fleet;
  const bad = await runInProcess(['reset', '--selector', '([', '--yes', '--url', cluster.url, '--state-dir', stateDir]);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--selector "\(\[" is not a valid regular expression/);
  const snap = await runInProcess(['rollback', ...sources.map((s) => s.name), '--snapshot', 'snap-x', '--yes', '--url', cluster.url, '--state-dir', stateDir]);
  assert.equal(snap.status, 2);
  assert.match(snap.stderr, /--snapshot names one connector's snapshot/);
  const conc = await runInProcess(['reset', '--all', '--concurrency', '0', '--yes', '--url', cluster.url, '--state-dir', stateDir]);
  assert.equal(conc.status, 2);
  assert.match(conc.stderr, /--concurrency 0 is not a whole number from 1 to 64/);
  assert.deepEqual(await runsIn(stateDir), []);
});

test('one connector refused in pre-flight refuses the batch; with --skip-invalid the other runs and the refused one is listed', async () => {
  const { cluster, sources, stateDir } = fleet;
  const [good, refused] = sources as [FleetSource, FleetSource];
  const before = await snapshotCluster();
  const partition = { filename: join(cluster.dir, `${good.name}-elsewhere.txt`) };
  // Offsets for `good` only: `refused` has none in the document, a pre-flight refusal.
  const input = JSON.stringify({ connectors: { [good.name]: { offsets: [{ partition, offset: { position: 3 } }] } } });
  const args = ['rewind', good.name, refused.name, '--offsets', '-', '--yes', '--output', 'json', '--url', cluster.url, '--state-dir', stateDir];

  const r = await runInProcess(args, { stdin: input });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /pre-flight refused 1 of 2 connector\(s\); nothing was changed/);
  assert.match(r.stderr, new RegExp(`${refused.name}: .*has no offsets for ${refused.name}`));
  assert.deepEqual(await snapshotCluster(), before);
  assert.deepEqual(await runsIn(stateDir), []);
  // The refused batch is one refused entry in the audit trail, under the OS user.
  const audit = (await runInProcess(['audit', '--state-dir', stateDir, '-o', 'json'])).stdout.trim().split('\n').map((l) => JSON.parse(l) as { action: string; outcome: string; message: string; actor: { via: string } });
  assert.deepEqual(audit.map((e) => [e.action, e.outcome, e.actor.via]), [['rewind', 'refused', 'cli']]);
  assert.match(audit[0]!.message, /pre-flight refused 1 of 2/);

  const skip = await runInProcess([...args, '--skip-invalid'], { stdin: input });
  assert.equal(skip.status, 0, skip.stderr);
  const summary = JSON.parse(skip.stdout) as BatchSummaryJson;
  assert.deepEqual(summary.counts, { succeeded: 1, unchanged: 0, failed: 0, skipped: 1, refused: 0, cancelled: 0 });
  assert.equal(summary.connectors.find((c) => c.connector === refused.name)?.status, 'skipped');
  assert.equal(summary.connectors.find((c) => c.connector === refused.name)?.finalState, 'RUNNING');
  const written = (await cluster.offsets(good.name)).offsets.find((o) => o.partition.filename === partition.filename);
  assert.deepEqual(written?.offset, { position: 3 });
  const runs = await runsIn(stateDir);
  assert.deepEqual(runs.map((x) => x.connector), [good.name], 'only the valid connector ran');
});

test('a batch --dry-run names no batch id (it is never recorded): "(dry run, not recorded)", no batchId in JSON (issue 30, point 14)', async () => {
  const { cluster, sources, stateDir } = fleet;
  const names = sources.map((s) => s.name);
  const text = await runInProcess(['reset', ...names, '--dry-run', '--url', cluster.url, '--state-dir', stateDir]);
  assert.equal(text.status, 0, text.stderr);
  assert.match(text.stdout, /^Batch \(dry run, not recorded\): reset of 2 connector\(s\) on /m);
  assert.doesNotMatch(text.stdout + text.stderr, /batch-\d{8}-/);
  const json = await runInProcess(['reset', ...names, '--dry-run', '--output', 'json', '--url', cluster.url, '--state-dir', stateDir]);
  assert.equal(json.status, 0, json.stderr);
  const doc = JSON.parse(json.stdout) as { batchId?: string; dryRun: boolean };
  assert.equal(doc.dryRun, true);
  assert.equal(doc.batchId, undefined);
  assert.doesNotMatch(json.stderr, /batch-\d{8}-/);
});
