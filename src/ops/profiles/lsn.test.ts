// Real parts: none (the code under test, in this process).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { classifyTarget, debeziumPosition, describePosition, parseLsn, pgLsn, showLsn, usecTime } from './lsn.js';

test('LSNs read as PostgreSQL writes them and as Debezium stores them are the same number', () => {
  assert.equal(parseLsn('0/196E9F8'), 0x196e9f8n);
  assert.equal(parseLsn(26667512), 26667512n);
  assert.equal(parseLsn('26667512'), 26667512n);
  assert.equal(parseLsn('16/B374D848'), (0x16n << 32n) | 0xb374d848n);
  assert.equal(parseLsn('FFFFFFFF/FFFFFFFF'), (1n << 64n) - 1n);
  for (const bad of ['', '0/', '/1', '1/2/3', 'x/1', '0/123456789', -1, 1.5, null, undefined, {}, '18446744073709551616']) {
    assert.equal(parseLsn(bad), undefined, JSON.stringify(bad));
  }
});

test('an LSN is shown the way PostgreSQL writes it, beside the decimal', () => {
  assert.equal(pgLsn(0x196e9f8n), '0/196E9F8');
  assert.equal(pgLsn((0x16n << 32n) | 0xb374d848n), '16/B374D848');
  assert.equal(pgLsn(0n), '0/0');
  assert.equal(showLsn(26667512n), '0/196E9F8 (26667512)');
  for (const n of [0n, 1n, 0xffffffffn, 1n << 32n, (1n << 64n) - 1n]) assert.equal(parseLsn(pgLsn(n)), n);
});

test('ts_usec is shown as a time', () => {
  assert.equal(usecTime(1_733_300_000_123_456), '2024-12-04T08:13:20.123Z');
  assert.equal(usecTime('1733300000123456'), '2024-12-04T08:13:20.123Z');
  assert.equal(usecTime(undefined), undefined);
  assert.equal(usecTime(-5), undefined);
});

test('a Debezium offset resumes from the lowest of its LSNs', () => {
  const p = debeziumPosition({ lsn: 26667512, lsn_proc: 26667000, lsn_commit: 26667512, txId: 771, ts_usec: 1_733_300_000_000_000 });
  assert.equal(p?.lsn, 26667000n);
  assert.equal(describePosition(p!), 'lsn 0/196E9F8 (26667512), lsn_proc 0/196E7F8 (26667000), lsn_commit 0/196E9F8 (26667512), txId 771, ts_usec 2024-12-04T08:13:20.000Z');
  assert.equal(debeziumPosition(null), undefined);
  assert.equal(debeziumPosition({ position: 3 }), undefined);
});

test('every target LSN falls in exactly one class, by the slot and the current offset', () => {
  const slot = { restartLsn: 100n, confirmedFlushLsn: 200n, walLsn: 500n };
  assert.equal(classifyTarget(99n, slot, 300n), 'below-restart');
  assert.equal(classifyTarget(100n, slot, 300n), 'already-streamed');
  assert.equal(classifyTarget(199n, slot, 300n), 'already-streamed');
  assert.equal(classifyTarget(200n, slot, 300n), 'replays');
  assert.equal(classifyTarget(300n, slot, 300n), 'replays');
  assert.equal(classifyTarget(301n, slot, 300n), 'forward');
  assert.equal(classifyTarget(500n, slot, 300n), 'forward');
  assert.equal(classifyTarget(501n, slot, 300n), 'beyond-wal');
  // No current offset (a reset connector): only the slot and the WAL decide.
  assert.equal(classifyTarget(400n, slot), 'replays');
  assert.equal(classifyTarget(501n, slot), 'beyond-wal');
});
