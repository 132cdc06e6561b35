// Ctrl-C during a batch: the running connector's run cancels and puts it back; no further
// connector starts; the summary says so per connector, and every connector is RUNNING with its
// offsets unchanged. The first run is held (OFFSETCTL_TEST_PAUSE_BEFORE_STEP) after its stop.
// Real parts: the sandbox's Kafka broker and Connect cluster, a SQLite store file, child processes.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { sortedOffsets, waitFor, type OffsetsBody } from '../support/connect.js';
import { cliPath as CLI } from '../support/repo.js';
import { startFleet, type BatchSummaryJson, type Fleet } from '../support/fleet.js';

let fleet: Fleet;

before(async () => {
  fleet = await startFleet('fleet-cancel', 3);
});
after(async () => fleet?.remove());

test('SIGINT during a batch recovers the running connector and starts no other', async () => {
  const { cluster, prefix, sources, stateDir } = fleet;
  const before = new Map<string, OffsetsBody['offsets']>();
  for (const s of sources) before.set(s.name, sortedOffsets(await cluster.offsets(s.name)));
  const input = JSON.stringify({ connectors: Object.fromEntries(sources.map((s) => [s.name, { offsets: [{ partition: { filename: join(cluster.dir, `${s.name}-elsewhere.txt`) }, offset: { position: 9 } }] }])) });
  const child = spawn(process.execPath, [CLI, 'rewind', '--selector', `^${prefix}-`, '--offsets', '-', '--concurrency', '1', '--yes', '--output', 'json', '--url', cluster.url, '--state-dir', stateDir], {
    env: { ...process.env, OFFSETCTL_TEST_PAUSE_BEFORE_STEP: 'rewindOffsets', OFFSETCTL_TEST_PAUSE_MS: '6000' }, stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  child.stdin.end(input);

  // The first connector (in name order) is stopped and held before its PATCH: interrupt now.
  await waitFor('the first connector STOPPED by the batch', async () => (await cluster.status(sources[0]!.name)).connector.state === 'STOPPED', 60_000, 100);
  child.kill('SIGINT');
  const code = await exited;
  assert.equal(code, 1, stderr);
  assert.match(stderr, /interrupted: batch batch-\S+ starts no more connectors/);
  const summary = JSON.parse(stdout) as BatchSummaryJson;
  assert.deepEqual(summary.counts, { succeeded: 0, unchanged: 0, failed: 1, skipped: 0, refused: 0, cancelled: 2 });
  const first = summary.connectors[0]!;
  assert.equal(first.connector, sources[0]!.name);
  assert.equal(first.status, 'failed');
  assert.equal(first.recovered, true);
  assert.equal(first.finalState, 'RUNNING');
  for (const row of summary.connectors.slice(1)) {
    assert.equal(row.status, 'cancelled');
    assert.equal(row.finalState, 'RUNNING');
  }
  for (const s of sources) {
    await cluster.waitRunning(s.name);
    assert.deepEqual(sortedOffsets(await cluster.offsets(s.name)), before.get(s.name), `${s.name} offsets unchanged`);
  }
});
