import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
