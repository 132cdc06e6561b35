// Real parts: none (the code under test, in this process).
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkPluginRules } from './plugin-rules.js';

const fileSource = { 'connector.class': 'org.apache.kafka.connect.file.FileStreamSourceConnector', file: '/data/in.txt' };

test('a negative FileStreamSource position is refused before the connector is touched, naming the field', () => {
  assert.throws(
    () => checkPluginRules(fileSource, [{ partition: { filename: '/data/in.txt' }, offset: { position: -3 } }]),
    (e: Error & { code?: string }) => e.code === 'E_OFFSETS_INVALID' && /offsets\[0\]\.offset\.position: must be ≥ 0/.test(e.message),
  );
});

test('FileStreamSource partitions need a filename and offsets a position; null offsets always pass', () => {
  assert.throws(() => checkPluginRules(fileSource, [{ partition: { file: '/data/in.txt' }, offset: { position: 0 } }]), /partition\.filename/);
  assert.throws(() => checkPluginRules(fileSource, [{ partition: { filename: '/data/in.txt' }, offset: { pos: 0 } }]), /offset\.position/);
  assert.deepEqual(checkPluginRules(fileSource, [{ partition: { filename: '/data/in.txt' }, offset: null }]), []);
  assert.deepEqual(checkPluginRules(fileSource, [{ partition: { filename: '/data/in.txt' }, offset: { position: 0 } }]), []);
});

test('a partition of another file is accepted with a warning', () => {
  const warnings = checkPluginRules(fileSource, [{ partition: { filename: '/data/old.txt' }, offset: { position: 0 } }]);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0] ?? '', /not the file the connector reads now/);
});

test('MirrorMaker 2 checkpoint and heartbeat offsets accept only 0; unknown plugins are not checked', () => {
  const checkpoint = { 'connector.class': 'org.apache.kafka.connect.mirror.MirrorCheckpointConnector' };
  assert.throws(() => checkPluginRules(checkpoint, [{ partition: { group: 'g', topic: 't', partition: 0 }, offset: { offset: 5 } }]), /only accepts 0/);
  assert.deepEqual(checkPluginRules(checkpoint, [{ partition: { group: 'g', topic: 't', partition: 0 }, offset: { offset: 0 } }]), []);
  const heartbeat = { 'connector.class': 'MirrorHeartbeatConnector' };
  assert.throws(() => checkPluginRules(heartbeat, [{ partition: { sourceClusterAlias: 'a' }, offset: { offset: 0 } }]), /targetClusterAlias/);
  assert.deepEqual(checkPluginRules({ 'connector.class': 'com.example.Other' }, [{ partition: { x: 1 }, offset: { position: -1 } }]), []);
});

test('entries naming other files than the one read now are one warning, with the count and the first 10 (issue 20, point 8)', () => {
  const config = { 'connector.class': 'org.apache.kafka.connect.file.FileStreamSourceConnector', file: '/in.txt' };
  const many = Array.from({ length: 700_000 }, (_v, i) => ({ partition: { filename: `/other-${i}.txt` }, offset: { position: 1 } }));
  const warnings = checkPluginRules(config, many);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, /^700,000 partitions name another file than the one the connector reads now \("\/in\.txt"\): .*; first 10 shown: offsets\[0\] "\/other-0\.txt", .*offsets\[9\] "\/other-9\.txt"$/);
  assert.deepEqual(checkPluginRules(config, many.slice(0, 1)), ['offsets[0].partition.filename "/other-0.txt" is not the file the connector reads now ("/in.txt"): Connect keeps it, but it will not change what the connector reads']);
  assert.deepEqual(checkPluginRules(config, [{ partition: { filename: '/in.txt' }, offset: { position: 1 } }]), []);
});
