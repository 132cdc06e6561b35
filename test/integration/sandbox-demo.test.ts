// The README's first command: `offsetctl sandbox demo` rewinds a live pipeline on the sandbox
// with `offsetctl rewind` and shows the lines that were replayed.
// Real parts: the sandbox's Kafka broker and Connect cluster, spawns the CLI.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli } from '../support/cli.js';
import { getSandbox, requireLaneOne } from '../support/sandbox.js';

test('sandbox demo rewinds a source and every line arrives in the sink a second time', { timeout: 240_000 }, async () => {
  // `sandbox demo` makes its pipeline on the main cluster: lane 1's.
  requireLaneOne('`sandbox demo`');
  await getSandbox();
  const cli = await runCli(['sandbox', 'demo']);
  assert.equal(cli.status, 0, cli.stderr + cli.stdout);
  assert.match(cli.stdout, /rewind of demo-\S+-source done; the connector is RUNNING \(snapshot snap-/);
  assert.match(cli.stdout, /The sink's file went from 5 to 10 lines; replayed:/);
  const replayed = cli.stdout.slice(cli.stdout.indexOf('replayed:')).split('\n').filter((l) => l.includes('| order'));
  assert.deepEqual(replayed.map((l) => l.replace(/^\s*\|\s*/, '')), ['order 1001 created', 'order 1001 paid', 'order 1002 created', 'order 1001 shipped', 'order 1002 cancelled']);
});
