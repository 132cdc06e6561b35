// Issue 14, point 1 on the sandbox: limits in pre-flight and large sets written in chunks. The
// refusals are checked with --dry-run as well, so that even without the limits (before the fix)
// nothing oversized could reach the shared sandbox's workers.
// Real parts: the sandbox's Kafka broker and Connect cluster, a SQLite store file, spawns the CLI.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { runCli } from '../support/cli.js';
import { sandboxRest, startPipeline, tempDir, type ConnectRest, type FilePipeline } from '../support/connect.js';
import { waitForSourceCaughtUp } from '../../src/sandbox/index.js';
import { offsetsFile, sorted, startCli } from './defects-support.js';

let rest: ConnectRest;
let pipeline: FilePipeline;
let url: string;

before(async () => {
  rest = await sandboxRest(0);
  url = rest.baseUrl;
  pipeline = await startPipeline(rest, 'defects-limits', ['a', 'b'], { withSink: false });
  await waitForSourceCaughtUp(rest, pipeline);
});
after(async () => pipeline?.remove().catch(() => undefined));

function manyPartitions(count: number, position = 1): Array<{ partition: { filename: string }; offset: { position: number } }> {
  const dir = tempDir('defects-many');
  return Array.from({ length: count }, (_v, i) => ({ partition: { filename: join(dir, `f${i}.txt`) }, offset: { position: position + i } }));
}

test('1: a set above the default partition limit is refused in pre-flight (exit 2) naming the count, the limit and how to raise it', async () => {
  const stateDir = tempDir('defects-state');
  const file = offsetsFile(manyPartitions(100_001));
  const r = await runCli(['rewind', pipeline.source, '--offsets', file, '--dry-run', '--url', url, '--state-dir', stateDir]);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /100,001 partitions, above the limit of 100,000/);
  assert.match(r.stderr, /--max-partitions/);
  assert.match(r.stderr, /OFFSETCTL_MAX_PARTITIONS/);
  assert.equal((await rest.status(pipeline.source)).connector.state, 'RUNNING');
});

test('1: a file above the byte limit is refused before it is read; a bad limit value is a usage error', async () => {
  const stateDir = tempDir('defects-state');
  const file = offsetsFile(manyPartitions(50));
  const r = await runCli(['rewind', pipeline.source, '--offsets', file, '--yes', '--max-offsets-bytes', '1000', '--url', url, '--state-dir', stateDir]);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /is [0-9,]+ bytes, above the limit of 1,000 bytes/);
  assert.match(r.stderr, /--max-offsets-bytes/);
  // stdin is cut off as soon as it goes past the limit, not read whole.
  const piped = await startCli(['rewind', pipeline.source, '--offsets', '-', '--yes', '--max-offsets-bytes', '1000', '--url', url, '--state-dir', stateDir], {}, Buffer.alloc(4 * 1024 * 1024, 0x20)).done;
  assert.equal(piped.status, 2, piped.stderr);
  assert.match(piped.stderr, /^error \[E_PREFLIGHT\]: <stdin>: the offsets input went past [0-9,]+ bytes \(reading stopped there\), above the limit of 1,000 bytes/m);
  assert.doesNotMatch(piped.stderr, /cannot read the offsets file|or - for stdin/, 'one message, with the file case\'s code (issue 20, point 15)');
  const bad = await runCli(['rewind', pipeline.source, '--offsets', file, '--yes', '--chunk-size', '0', '--url', url, '--state-dir', stateDir]);
  assert.equal(bad.status, 2, bad.stderr);
  assert.match(bad.stderr, /--chunk-size must be a positive whole number/);
  assert.equal((await rest.status(pipeline.source)).connector.state, 'RUNNING');
});

test('1: 5,000 partitions with --chunk-size 1000 are written in five verified PATCHes with progress, and rolled back in chunks too', async () => {
  const stateDir = tempDir('defects-state');
  const before = await rest.offsets(pipeline.source);
  const target = manyPartitions(5_000, 3);
  const r = await runCli(['rewind', pipeline.source, '--offsets', offsetsFile(target), '--yes', '--chunk-size', '1000', '--url', url, '--state-dir', stateDir]);
  assert.equal(r.status, 0, r.stderr.slice(-3000));
  for (let i = 1; i <= 5; i++) assert.match(r.stdout, new RegExp(`writing chunk ${i}/5 \\(1000 partitions\\)`));
  assert.match(r.stdout, /the connector is RUNNING/);
  const now = new Map((await rest.offsets(pipeline.source)).offsets.map((o) => [String(o.partition['filename']), o.offset]));
  for (const t of target) assert.deepEqual(now.get(t.partition.filename), t.offset);

  const runs = JSON.parse((await runCli(['runs', '--output', 'json', '--state-dir', stateDir])).stdout) as Array<{ id: string }>;
  const shown = JSON.parse((await runCli(['runs', 'show', runs[0]!.id, '--output', 'json', '--state-dir', stateDir])).stdout) as { events: Array<{ type: string; stepId?: string; detail: { method?: string; attempt?: number; status?: number } }> };
  // One write step per chunk (a chunk's PATCH may be retried while the cluster rebalances).
  const writes = shown.events.filter((e) => e.type === 'step.started' && e.stepId === 'rewindOffsets' && e.detail.attempt === 1);
  const answers = shown.events.filter((e) => e.type === 'response.received' && e.stepId === 'rewindOffsets').map((e) => e.detail.status);
  assert.equal(writes.length, 5, `one write step per chunk; PATCH answers: ${JSON.stringify(answers)}`);
  const stops = shown.events.filter((e) => e.type === 'request.sent' && e.detail.method === 'PUT');
  assert.equal(stops.filter((e) => /\/stop$/.test(String((e.detail as { url?: string }).url))).length, 1, 'stopped once');

  const back = await runCli(['rollback', pipeline.source, '--yes', '--chunk-size', '1000', '--url', url, '--state-dir', stateDir]);
  assert.equal(back.status, 0, back.stderr.slice(-3000));
  // 5,000 removals plus the one partition of the snapshot: six chunks.
  assert.match(back.stdout, /writing chunk 6\/6 \(1 partitions\)/);
  await rest.waitForRunning(pipeline.source);
  assert.deepEqual(sorted((await rest.offsets(pipeline.source)).offsets), sorted(before.offsets));
});

test('1: a chunked rewind killed after its first write is finished by runs resume, which writes every chunk', async () => {
  const stateDir = tempDir('defects-state');
  const target = manyPartitions(3_000, 7);
  const env = { OFFSETCTL_CHUNK_SIZE: '1000' };
  const killed = await runCli(['rewind', pipeline.source, '--offsets', offsetsFile(target), '--yes', '--url', url, '--state-dir', stateDir], { env: { ...env, OFFSETCTL_TEST_KILL_BEFORE_STEP: 'verifyOffsets' } });
  assert.notEqual(killed.status, 0);
  assert.match(killed.stdout, /writing chunk 1\/3/);
  assert.doesNotMatch(killed.stdout, /writing chunk 2\/3/);
  const runs = JSON.parse((await runCli(['runs', '--output', 'json', '--state-dir', stateDir])).stdout) as Array<{ id: string; status: string; lastStep: string }>;
  assert.equal(runs[0]?.status, 'interrupted');
  assert.equal(runs[0]?.lastStep, 'rewindOffsets');
  const resumed = await runCli(['runs', 'resume', runs[0]!.id, '--yes', '--state-dir', stateDir], { env });
  assert.equal(resumed.status, 0, resumed.stderr.slice(-3000));
  assert.match(resumed.stdout, /writing chunk 3\/3/);
  await rest.waitForRunning(pipeline.source);
  const now = new Map((await rest.offsets(pipeline.source)).offsets.map((o) => [String(o.partition['filename']), o.offset]));
  for (const t of target) assert.deepEqual(now.get(t.partition.filename), t.offset);
});
