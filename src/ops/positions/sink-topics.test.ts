// Real parts: none (the code under test, in this process).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { sinkGroupId, sinkTopics } from './sink-topics.js';

const cluster = async () => ['orders', 'orders-eu', 'refunds', 'xorders'];

test('a sink\'s group is connect-<name> unless consumer.override.group.id is set', () => {
  assert.equal(sinkGroupId('s', {}), 'connect-s');
  assert.equal(sinkGroupId('s', { 'consumer.override.group.id': 'custom' }), 'custom');
});

test('topics lists names (missing ones reported); topics.regex must match the whole name', async () => {
  assert.deepEqual(await sinkTopics('s', { topics: 'refunds, orders,gone' }, cluster), { groupId: 'connect-s', topics: ['gone', 'orders', 'refunds'], from: 'topics', missing: ['gone'] });
  assert.deepEqual((await sinkTopics('s', { 'topics.regex': 'orders.*' }, cluster)).topics, ['orders', 'orders-eu']);
  await assert.rejects(sinkTopics('s', {}, cluster), /neither topics nor topics.regex/);
  await assert.rejects(sinkTopics('s', { 'topics.regex': '(' }, cluster), /not a regular expression/);
});
