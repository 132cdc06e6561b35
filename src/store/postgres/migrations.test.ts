// A shipped migration of the team store is history: every team database was upgraded by exactly
// that text. Any edit must be a new migration instead; this pins each one's hash (as schema.test.ts
// does for the SQLite backend).
// Real parts: a SQLite store file.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { PG_MIGRATIONS } from './migrations.js';

const SHIPPED = [
  'eae28622f4eb7750cfee67cca309870ac2ea93bd8d070d9dc8a100a49013a7dd',
  'bd5b7dc29953f1ac386ac7fff5c2bd15a8c32616153cf6e780b7965174de5e2a',
  '1c3901fc428fabdf1e7e733dbfc8b024ae676987883d916cd333ddb1302d3479',
];

test('every shipped team-store migration is byte for byte what was shipped', () => {
  assert.ok(PG_MIGRATIONS.length >= SHIPPED.length, 'a shipped migration was removed');
  SHIPPED.forEach((hash, i) => {
    const actual = createHash('sha256').update(PG_MIGRATIONS[i]!).digest('hex');
    assert.equal(actual, hash, `team-store migration ${i + 1} changed; add a new migration instead of editing a shipped one`);
  });
});
