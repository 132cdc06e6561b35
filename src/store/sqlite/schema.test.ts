// A shipped migration is history: an installed state folder was upgraded by exactly that text, and
// `user_version` records only how many ran. Any edit to one (even whitespace that changes what
// sqlite_master shows) must be a new migration instead; this pins each one's hash.
// Real parts: a SQLite store file.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { MIGRATIONS } from './schema.js';

const SHIPPED = [
  '0497f23212a8cda855d980ed3e41cd8331fa47a04947decc6be1df623eb271fb',
  '0a699dbb45193cfbf22bfb625219fb71b8204027dc2a0f27b9212a341e3ecfa7',
  '7f2f974faba275e66b8e35c2bb93b9e7def00d612b0ea29b617f23ede562b0c6',
];

test('every shipped migration is byte for byte what was shipped', () => {
  assert.ok(MIGRATIONS.length >= SHIPPED.length, 'a shipped migration was removed');
  SHIPPED.forEach((hash, i) => {
    const actual = createHash('sha256').update(MIGRATIONS[i]!).digest('hex');
    assert.equal(actual, hash, `migration ${i + 1} changed; add a new migration instead of editing a shipped one`);
  });
});
