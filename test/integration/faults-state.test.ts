// The state folder misbehaves: the disk fills while the snapshot is written, the database is
// corrupted or locked by another program, two processes share one folder. Every case ends
// before the change with a message and no stack trace, and the cluster keeps its offsets.
// The full-disk case mounts a small tmpfs (needs root; skipped otherwise). docs/reliability.md,
// "The state folder".
// Real parts: the sandbox's Kafka broker and Connect cluster, a SQLite store file, child processes, spawns the CLI.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../support/cli.js';
import { type ConnectFixture, connectFixture, sortedOffsets, tempDir } from '../support/connect.js';
import { openDatabase } from '../../src/store/sqlite/index.js';
import { STORE_FILE } from '../../src/store/index.js';

let cluster: ConnectFixture;
let source: { name: string; file: string };
const isRoot = process.getuid?.() === 0;
const mounts: string[] = [];

before(async () => {
  cluster = await connectFixture();
  source = await cluster.createSource(3);
});
after(async () => {
  for (const m of mounts) {
    try { execFileSync('umount', [m]); } catch { /* already gone */ }
    rmSync(m, { recursive: true, force: true });
  }
  await cluster?.cleanup();
});

function noStackTrace(text: string): void {
  assert.doesNotMatch(text, /^\s+at .+\(.+:\d+:\d+\)$/m, 'no stack trace');
  assert.doesNotMatch(text, /SqliteError|TypeError|RangeError/);
}

test('full disk while the snapshot is written: the run stops before the change step, the connector is put back although nothing can be journaled, offsets unchanged', { skip: !isRoot && 'mounting a tmpfs needs root' }, async () => {
  // Many partitions make a snapshot larger than the folder's free space (the journal itself is small).
  const path = `/connectors/${encodeURIComponent(source.name)}`;
  await cluster.request('PUT', `${path}/stop`);
  for (let i = 0; i < 60; i++) if ((await cluster.status(source.name)).connector.state === 'STOPPED') break; else await new Promise((r) => setTimeout(r, 500));
  const many = Array.from({ length: 12000 }, (_v, i) => ({ partition: { filename: join(cluster.dir, `${'p'.repeat(200)}-${i}.txt`) }, offset: { position: i } }));
  assert.equal((await cluster.request('PATCH', `${path}/offsets`, { offsets: many })).status, 200);
  await cluster.request('PUT', `${path}/resume`);
  await cluster.waitRunning(source.name);
  const before = sortedOffsets(await cluster.offsets(source.name));
  assert.ok(before.length > 12000);

  const dir = tempDir('offsetctl-fulldisk-');
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir]);
  mounts.push(dir);
  const target = { offsets: [{ partition: { filename: source.file }, offset: { position: 0 } }] };
  const r = await runCli(['rewind', source.name, '--offsets', '-', '--yes', '--url', cluster.url, '--state-dir', dir], { stdin: JSON.stringify(target) });
  // The promise that holds: no change without a stored snapshot, and an account that tells the truth.
  assert.equal(r.status, 1, r.stderr);
  noStackTrace(r.stderr);
  assert.match(r.stderr, /database or disk is full/);
  const ownRun = r.stderr.split('workflow restore-connector-offsets')[0]!;
  assert.doesNotMatch(ownRun, /✓ (captureOffsets|rewindOffsets)/, 'neither the snapshot step nor the change step of the rewind passed');
  const now = (await cluster.status(source.name)).connector.state;
  assert.match(r.stderr, new RegExp(`The connector is now ${now}`), 'the message names the state Connect reports');
  // No connector left stopped: the recovery cannot journal on the full disk, and puts the connector back all the same.
  assert.equal(now, 'RUNNING', `the connector was brought back although the recovery could not be journaled: ${r.stderr}`);
  assert.match(r.stderr, /Recovery put the connector back \(RUNNING\)/);
  assert.match(r.stderr, /could not be journaled \(database or disk is full\)/);
  assert.match(r.stderr, /(failed at|during) step \w+/, 'the account names the step that was running when the store failed');
  assert.deepEqual(sortedOffsets(await cluster.offsets(source.name)), before, 'offsets unchanged');
  execFileSync('umount', [dir]);
});

test('a corrupted database is refused with a message (exit 2), no stack trace, nothing changed', async () => {
  const dir = tempDir('offsetctl-corrupt-');
  writeFileSync(join(dir, 'offsetctl.db'), Buffer.concat([Buffer.from('SQLite format 3\0'), Buffer.alloc(4096, 0xa5)]));
  const before = sortedOffsets(await cluster.offsets(source.name));
  const r = await runCli(['rewind', source.name, '--offsets', '-', '--yes', '--url', cluster.url, '--state-dir', dir], { stdin: JSON.stringify({ offsets: [{ partition: { filename: source.file }, offset: { position: 0 } }] }) });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /cannot open the state store .*offsetctl\.db/);
  noStackTrace(r.stderr);
  const runs = await runCli(['runs', '--state-dir', dir]);
  assert.equal(runs.status, 2);
  noStackTrace(runs.stderr);
  assert.deepEqual(sortedOffsets(await cluster.offsets(source.name)), before);
  assert.equal((await cluster.status(source.name)).connector.state, 'RUNNING');
});

test('a database locked by another program: the run waits, then is refused with a message; nothing changed', async () => {
  const dir = tempDir('offsetctl-locked-');
  mkdirSync(dir, { recursive: true });
  // Create the store, then hold an exclusive lock on it from this process.
  assert.equal((await runCli(['runs', '--state-dir', dir])).status, 0);
  // Through the project's driver (node:sqlite on Node 22.13+), as the store opens it.
  const holder = openDatabase(join(dir, STORE_FILE));
  holder.pragma('locking_mode = EXCLUSIVE');
  holder.exec('BEGIN EXCLUSIVE');
  try {
    const before = sortedOffsets(await cluster.offsets(source.name));
    const r = await runCli(['rewind', source.name, '--offsets', '-', '--yes', '--url', cluster.url, '--state-dir', dir], { stdin: JSON.stringify({ offsets: [{ partition: { filename: source.file }, offset: { position: 0 } }] }) });
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /locked|busy/i);
    noStackTrace(r.stderr);
    assert.deepEqual(sortedOffsets(await cluster.offsets(source.name)), before);
    assert.equal((await cluster.status(source.name)).connector.state, 'RUNNING');
  } finally {
    holder.exec('ROLLBACK');
    holder.close();
  }
  assert.ok(readdirSync(dir).includes('offsetctl.db'));
});
