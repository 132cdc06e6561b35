// Real parts: none; the CLI in-process (main(argv, io), test/support/in-process.ts). Runs in one
// process stay apart: environment, exit status, streams, --no-color, registered secrets.
import * as assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { useColor } from '../../src/cli/render/color.js';
import { redactText } from '../../src/http/redact.js';
import { runInProcess } from '../support/in-process.js';

const configIn = (dir: string): NodeJS.ProcessEnv => ({ OFFSETCTL_CONFIG: join(dir, 'config.yaml') });

test('two runs in one process with different environments do not see each other (one after the other and at once)', async () => {
  const a = configIn(mkdtempSync(join(tmpdir(), 'offsetctl-inproc-a-')));
  const b = configIn(mkdtempSync(join(tmpdir(), 'offsetctl-inproc-b-')));
  assert.equal((await runInProcess(['config', 'set-context', 'alpha', '--url', 'http://127.0.0.1:9'], { env: a })).status, 0);
  assert.equal((await runInProcess(['config', 'set-context', 'beta', '--url', 'http://127.0.0.1:9'], { env: b })).status, 0);
  const [ra, rb] = await Promise.all([
    runInProcess(['config', 'current-context'], { env: a }),
    runInProcess(['config', 'current-context'], { env: b }),
  ]);
  assert.deepEqual([ra.stdout, rb.stdout], ['alpha\n', 'beta\n']);
  // The test process's own environment was not the commands' environment.
  assert.equal(process.env.OFFSETCTL_CONFIG, undefined);
});

test('the exit status is returned, never left on the process; stdout and stderr are the run\'s own', async () => {
  const refused = await runInProcess(['rewind', 'x', '--to-datetime', 'T']);
  assert.equal(refused.status, 2);
  assert.match(refused.stderr, /unknown option '--to-datetime'/);
  assert.equal(refused.stdout, '');
  assert.equal(process.exitCode, undefined);
  const version = await runInProcess(['--version']);
  assert.equal(version.status, 0);
  assert.match(version.stdout, /^\d+\.\d+\.\d+/);
  assert.equal(version.stderr, '');
});

test('--no-color and a registered secret stay with their run', async () => {
  const run = await runInProcess(['--no-color', 'connectors', '--url', 'http://127.0.0.1:9/hunter2-inproc', '--user', 'ops', '--password-env', 'P'], {
    env: { OFFSETCTL_URL: undefined, P: 'hunter2-inproc' },
  });
  assert.equal(run.status, 2);
  // Masked in the run's own output (the URL in the error carries it)...
  assert.match(run.stderr, /127\.0\.0\.1:9\/\*\*\*\/connectors/);
  assert.doesNotMatch(run.stderr, /hunter2-inproc/);
  // ...but the process (and so the next run) neither masks that password nor lost its colour.
  assert.equal(redactText('hunter2-inproc'), 'hunter2-inproc');
  assert.equal(useColor({ isTTY: true }, { TERM: 'xterm' }), true);
});

test('`sandbox status` finds the sandbox through the run\'s environment (OFFSETCTL_SANDBOX_DIR), not the process\'s', async () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'offsetctl-inproc-sandbox-')), 'none-here');
  const r = await runInProcess(['sandbox', 'status'], { env: { OFFSETCTL_SANDBOX_DIR: dir } });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, `sandbox not running (${dir}); start it with \`offsetctl sandbox up --dir ${dir}\`\n`);
});
