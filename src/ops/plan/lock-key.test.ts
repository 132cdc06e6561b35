// Real parts: none (the code under test, in this process).
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { lockKeyWords } from '../../store/lock-scope.js';
import { lockKeyOf, needsConnectGroup } from './lock-key.js';

const kafka = 'kafka:Xy12';
const source = (config: Record<string, string> = {}) => ({ name: 'orders', type: 'source' as const, config });
const sink = (config: Record<string, string> = {}) => ({ name: 'orders', type: 'sink' as const, config });

test('a source in its Connect cluster\'s offsets topic locks that Connect cluster\'s key when its group is known, else the Kafka cluster\'s', () => {
  assert.equal(lockKeyOf(source(), kafka, 'connect-prod'), 'kafka:Xy12#connect-group:connect-prod');
  assert.equal(lockKeyWords('kafka:Xy12#connect-group:connect-prod'), 'the offsets topic of Connect cluster connect-prod on Kafka cluster Xy12');
  assert.equal(lockKeyOf(source(), kafka), kafka);
  assert.equal(needsConnectGroup(source()), true);
});

test('its own offsets topic, a sink\'s group, and a cluster known only by URL do not use the Connect group', () => {
  assert.equal(lockKeyOf(source({ 'offsets.storage.topic': 'orders-offsets' }), kafka, 'connect-prod'), 'kafka:Xy12#offsets-topic:orders-offsets');
  assert.equal(needsConnectGroup(source({ 'offsets.storage.topic': 'orders-offsets' })), false);
  assert.equal(lockKeyOf(sink(), kafka, 'connect-prod'), 'kafka:Xy12#group:connect-orders');
  assert.equal(needsConnectGroup(sink()), false);
  assert.equal(lockKeyOf(source(), 'url:http://a:8083', 'connect-prod'), 'url:http://a:8083');
});
