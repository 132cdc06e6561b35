// Real parts: none (the code under test, in this process).
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { BACKUP_KIND, importState, parseBackup } from './backup.js';

const good = () => ({
  kind: BACKUP_KIND, version: 1, exportedAt: '2026-12-01T10:00:00.000Z', cluster: { url: 'http://a:8083', kafkaClusterId: 'K1' },
  connectors: [{
    name: 'orders-sink', type: 'sink', state: 'RUNNING', plugin: { class: 'org.apache.kafka.connect.file.FileStreamSinkConnector', version: '4.4.0' },
    config: { 'connector.class': 'FileStreamSink', topics: 'orders', file: '/tmp/o' }, offsets: [{ partition: { kafka_topic: 'orders', kafka_partition: 0 }, offset: { kafka_offset: 7 } }],
    offsetsRead: 'stopped', readAt: '2026-12-01T10:00:00.000Z', kafkaClusterId: 'K1',
  }],
});

test('a backup written by export reads back as it was', () => {
  const parsed = parseBackup(good());
  assert.equal(parsed.connectors[0]?.name, 'orders-sink');
  assert.deepEqual(parsed.connectors[0]?.offsets, good().connectors[0]?.offsets);
});

test('each bad field is named with the fix, before anything is asked of a cluster', () => {
  const cases: Array<[(b: ReturnType<typeof good>) => unknown, RegExp]> = [
    [(b) => ({ ...b, kind: 'other' }), /kind must be offsetctl-backup/],
    [(b) => ({ ...b, version: 2 }), /version is 2; this offsetctl reads version 1/],
    [(b) => ({ ...b, connectors: [b.connectors[0], b.connectors[0]] }), /connectors\[1\]\.name repeats orders-sink/],
    [(b) => ({ ...b, connectors: [{ ...b.connectors[0], type: 'both' }] }), /connectors\[0\]\.type must be source or sink/],
    [(b) => ({ ...b, connectors: [{ ...b.connectors[0], config: { 'tasks.max': 1 } }] }), /connectors\[0\]\.config\.tasks\.max must be a string/],
    [(b) => ({ ...b, connectors: [{ ...b.connectors[0], offsets: [{ partition: { kafka_topic: 'orders' }, offset: { kafka_offset: 7 } }] }] }), /connectors\[0\]\.offsets\[0\]\.partition\.kafka_partition/],
    [(b) => ({ ...b, connectors: [{ ...b.connectors[0], offsetsRead: 'maybe' }] }), /offsetsRead must be running or stopped/],
  ];
  for (const [change, message] of cases) assert.throws(() => parseBackup(change(good())), message);
});

test('RUNNING, PAUSED and STOPPED come back as such; any other exported state as STOPPED', () => {
  assert.deepEqual(['RUNNING', 'PAUSED', 'STOPPED', 'FAILED', 'UNASSIGNED'].map(importState), ['RUNNING', 'PAUSED', 'STOPPED', 'STOPPED', 'STOPPED']);
});
