// A demo whose rewind fails says so: the sandbox itself started fine, so it is not reported as a
// start-up failure (E_SANDBOX_START), and the run's own output stays visible above.
// Real parts: the sandbox's Kafka broker and Connect cluster, spawns the CLI.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli } from '../support/cli.js';
import { getSandbox, requireLaneOne } from '../support/sandbox.js';

test('sandbox demo reports a failed rewind as the demo\'s failure, not as a sandbox start-up failure', { timeout: 240_000 }, async () => {
  // `sandbox demo` makes its pipeline on the main cluster: lane 1's.
  requireLaneOne('`sandbox demo`');
  await getSandbox();
  // The documented test hook makes the rewind process die before it changes anything.
  const cli = await runCli(['sandbox', 'demo'], { env: { OFFSETCTL_TEST_KILL_BEFORE_STEP: 'readInitialState' } });
  assert.equal(cli.status, 1, cli.stderr + cli.stdout);
  assert.match(cli.stderr, /E_SANDBOX_DEMO/);
  assert.doesNotMatch(cli.stderr, /E_SANDBOX_START/);
  assert.match(cli.stderr, /the sandbox is running, but the demo's `offsetctl rewind` did not succeed/);
});
