// Real parts: child processes.
import * as assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { isSandboxProcess, markerArg, spawnDetached, stopGroups, tailFile } from './processes.js';

test('a detached process is recognised by its marker and stopped with its whole group', { timeout: 30_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'offsetctl-proc-'));
  const log = join(dir, 'p.log');
  // The parent forks a child in the same group: stopping the group must end both.
  const script = "const c=require('child_process').spawn(process.execPath,['-e','setInterval(()=>{},1000)'],{stdio:'inherit'});console.log('child',c.pid);setInterval(()=>{},1000)";
  const pid = spawnDetached(process.execPath, ['-e', script, '--', markerArg(dir)], log, dir);
  let childPid = 0;
  for (let i = 0; i < 50 && !childPid; i++) {
    await new Promise((r) => setTimeout(r, 100));
    childPid = Number(/child (\d+)/.exec(tailFile(log, 5))?.[1] ?? 0);
  }
  assert.ok(childPid > 0, 'the child started');
  assert.equal(isSandboxProcess(pid, dir), true);
  assert.equal(isSandboxProcess(pid, `${dir}-other`), false, 'another sandbox folder is not ours');
  assert.equal(isSandboxProcess(process.pid, dir), false);
  await stopGroups([pid], dir, 5000);
  assert.equal(isSandboxProcess(pid, dir), false);
  assert.throws(() => process.kill(childPid, 0), /ESRCH/, 'the forked child is gone too');
});

test('stopGroups leaves a process without the marker alone', { timeout: 30_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'offsetctl-proc-'));
  // A detached process of another sandbox folder: same shape, but not this folder's marker.
  const pid = spawnDetached(process.execPath, ['-e', 'setInterval(()=>{},1000)', '--', markerArg(`${dir}-other`)], join(dir, 'q.log'), dir);
  // Until the child has exec'd, /proc shows the test's own command line (no marker at all): the
  // test waits for the other folder's marker, or on a loaded machine nothing would be stopped below.
  for (let i = 0; i < 100 && !isSandboxProcess(pid, `${dir}-other`); i++) await new Promise((r) => setTimeout(r, 50));
  assert.equal(isSandboxProcess(pid, `${dir}-other`), true, 'the other folder\'s process started');
  try {
    await stopGroups([pid], dir, 500);
    assert.doesNotThrow(() => process.kill(pid, 0), 'the process without this folder\'s marker is still running');
  } finally {
    await stopGroups([pid], `${dir}-other`, 5000);
  }
  assert.throws(() => process.kill(pid, 0), /ESRCH/, 'and it is stopped by its own folder');
});

test('tailFile returns the last lines', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'offsetctl-tail-')), 'x.log');
  writeFileSync(file, Array.from({ length: 100 }, (_v, i) => `line ${i}`).join('\n') + '\n');
  assert.equal(tailFile(file, 2), 'line 98\nline 99');
  assert.equal(tailFile(join(file, 'missing'), 2), '');
});
