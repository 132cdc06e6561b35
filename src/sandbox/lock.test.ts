// Real parts: child processes.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { withUpLock } from './lock.js';

test('two `up`s on one folder run one after the other, and the lock is released', async () => {
  const lock = join(mkdtempSync(join(tmpdir(), 'offsetctl-lock-')), 'up.lock');
  const events: string[] = [];
  const body = (name: string) => async () => {
    events.push(`${name} start`);
    await sleep(50);
    events.push(`${name} end`);
  };
  // Same process, so the holder check sees a live pid: the second waits (1 s polls).
  await Promise.all([withUpLock(lock, () => {}, body('a')), sleep(10).then(() => withUpLock(lock, () => {}, body('b')))]);
  assert.deepEqual(events.slice(0, 2), ['a start', 'a end']);
  assert.equal(existsSync(lock), false);
});

/** A pid that certainly belonged to a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

test('two waiters that both see a dead holder do not both take the lock', async () => {
  const lock = join(mkdtempSync(join(tmpdir(), 'offsetctl-lock-')), 'up.lock');
  writeFileSync(lock, String(deadPid()));
  // Both waiters read the dead pid before either acts on it: the interleaving that let both
  // remove and re-create the lock.
  let seen = 0;
  let release!: () => void;
  const bothSeen = new Promise<void>((resolve) => (release = resolve));
  const staleSeen = async (): Promise<void> => {
    seen++;
    if (seen === 2) release();
    if (seen <= 2) await bothSeen;
  };
  let inside = 0;
  let maxInside = 0;
  const body = async (): Promise<void> => {
    inside++;
    maxInside = Math.max(maxInside, inside);
    await sleep(100);
    inside--;
  };
  await Promise.all([withUpLock(lock, () => {}, body, 30_000, { staleSeen }), withUpLock(lock, () => {}, body, 30_000, { staleSeen })]);
  assert.equal(seen >= 2, true, 'both waiters saw the dead holder');
  assert.equal(maxInside, 1, 'only one waiter at a time held the lock');
  assert.equal(existsSync(lock), false);
  assert.deepEqual(readdirSync(dirname(lock)), [], 'no break file is left behind');
});
