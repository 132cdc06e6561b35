// Two runs on the same connector at once: the second is refused, naming the first.
// The documented test hook OFFSETCTL_TEST_PAUSE_BEFORE_STEP holds the first run, with its lock,
// until the test creates OFFSETCTL_TEST_RELEASE_FILE: no time window that a slow machine could miss.
// Real parts: the sandbox's Kafka broker and Connect cluster, a SQLite store file, spawns the CLI.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ConnectFixture, tempDir, waitFor, connectFixture } from '../support/connect.js';
import { runCli } from '../support/cli.js';

let cluster: ConnectFixture;
let source: { name: string; file: string };
let stateDir: string;

before(async () => {
  cluster = await connectFixture();
  source = await cluster.createSource(3);
  stateDir = tempDir('offsetctl-state-');
});
after(async () => cluster?.cleanup());

test('a second concurrent run on the same connector is refused with exit 2 naming the running one', async () => {
  const target = JSON.stringify({ offsets: [{ partition: { filename: join(cluster.dir, 'x.txt') }, offset: { position: 1 } }] });
  const args = ['rewind', source.name, '--offsets', '-', '--yes', '--url', cluster.url, '--state-dir', stateDir];
  const release = join(stateDir, 'release');
  const first = runCli(args, { stdin: target, env: { OFFSETCTL_TEST_PAUSE_BEFORE_STEP: 'rewindOffsets', OFFSETCTL_TEST_RELEASE_FILE: release } });
  try {
    const running = await waitFor('the first run to hold the lock', async () => {
      const r = await runCli(['runs', '--output', 'json', '--state-dir', stateDir]);
      const list = r.status === 0 ? (JSON.parse(r.stdout) as Array<{ id: string; status: string; pid: number; lastStep?: string }>) : [];
      return list.find((x) => x.status === 'running' && x.lastStep === 'captureOffsets');
    }, 60_000, 300);
    const second = await runCli(args, { stdin: target });
    assert.equal(second.status, 2, second.stderr);
    assert.match(second.stderr, /E_LOCKED/);
    assert.match(second.stderr, new RegExp(running.id));
    assert.match(second.stderr, new RegExp(`pid ${running.pid}`));
  } finally {
    // Also when an assertion failed: never leave the first run waiting.
    writeFileSync(release, '');
  }
  const done = await first;
  assert.equal(done.status, 0, done.stderr);
  await cluster.waitRunning(source.name);
});
