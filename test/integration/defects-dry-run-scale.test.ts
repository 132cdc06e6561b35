// Issue 20, point 8 on the sandbox: a FileStreamSource rewind of 60,000 partitions, each naming
// another file than the one the connector reads. Before the fix the text dry run was quadratic
// (20k partitions: 29 s, 40k: 33 s, 100k: 410 s, here under load), printed one warning line per
// partition, and `… --dry-run | head -1` ran to the end before it noticed the closed pipe. Now
// the warnings are summed up in a few lines, and the command ends as soon as its reader is gone.
// The per-partition cost of text against JSON is figure 12 of the benchmarks (bench/dry-run-output.ts).
// Real parts: the sandbox's Kafka broker and Connect cluster, a SQLite store file, the CLI in-process.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { runInProcess } from '../support/in-process.js';
import { connectFixture, tempDir, type ConnectFixture } from '../support/connect.js';
import { offsetsFile, startCli } from './defects-support.js';

const PARTITIONS = 60_000;
let cluster: ConnectFixture;
let source: { name: string; file: string };
let target: string;

before(async () => {
  cluster = await connectFixture();
  source = await cluster.createSource(3);
  const dir = tempDir('dry-run-scale');
  target = offsetsFile(Array.from({ length: PARTITIONS }, (_v, i) => ({ partition: { filename: join(dir, `other-${i}.txt`) }, offset: { position: i + 1 } })));
});
after(async () => cluster?.cleanup());

test('8: `rewind --dry-run | head -1` ends once the reader is gone, quietly', { timeout: 300_000 }, async () => {
  const run = startCli(['rewind', source.name, '--offsets', target, '--dry-run', '--url', cluster.url, '--state-dir', tempDir('dry-run-state')]);
  // Be `head -1`: read up to the first line, then close the pipe.
  const firstLine = await new Promise<string>((resolve) => {
    let seen = '';
    const onData = (chunk: Buffer): void => {
      seen += chunk.toString('utf8');
      if (seen.includes('\n')) {
        run.child.stdout!.off('data', onData);
        resolve(seen.slice(0, seen.indexOf('\n')));
      }
    };
    run.child.stdout!.on('data', onData);
  });
  const closedAt = performance.now();
  run.child.stdout!.destroy();
  const result = await run.done;
  const afterClose = performance.now() - closedAt;
  assert.match(firstLine, new RegExp(`Connector ${source.name} .*${PARTITIONS} partition\\(s\\) to write`));
  assert.equal(result.status, 0, result.stderr.slice(-2000));
  assert.doesNotMatch(result.stderr, /EPIPE|Error:/, 'no stack trace for a closed pipe');
  // Not a performance target (that is the benchmark): before the fix the process went on for minutes.
  assert.ok(afterClose < 60_000, `the CLI ran on for ${Math.round(afterClose)} ms after its reader left`);
});

test('8: the dry run of 60,000 partitions sums the warnings up instead of printing one line each', { timeout: 300_000 }, async () => {
  const r = await runInProcess(['rewind', source.name, '--offsets', target, '--dry-run', '--url', cluster.url, '--state-dir', tempDir('dry-run-state')]);
  assert.equal(r.status, 0, r.stderr.slice(-2000));
  const warnings = r.stderr.split('\n').filter((l) => l.startsWith('warning:'));
  assert.ok(warnings.length >= 1 && warnings.length <= 25, `${warnings.length} warning lines:\n${warnings.slice(0, 3).join('\n')}`);
  assert.equal(r.stdout.split('\n').filter((l) => l.startsWith('+ ')).length, PARTITIONS, 'every partition is in the diff');
  // The JSON outcome carries one summed-up warning, not 60,000.
  const j = await runInProcess(['rewind', source.name, '--offsets', target, '--dry-run', '--output', 'json', '--url', cluster.url, '--state-dir', tempDir('dry-run-state')]);
  assert.equal(j.status, 0, j.stderr.slice(-2000));
  const outcome = JSON.parse(j.stdout) as { warnings: string[] };
  assert.equal(outcome.warnings.filter((w) => /another file/.test(w)).length, 1, outcome.warnings.slice(0, 2).join('\n'));
  assert.match(outcome.warnings.find((w) => /another file/.test(w)) ?? '', /^60,000 partitions name another file than the one the connector reads now .*first 10 shown/);
});
