// Real parts: none (the code under test, in this process).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { describeSinkTopics, sinkConsumes } from './sink-preflight.js';
import { sinkForwardTargets } from './forward-targets.js';
import { describeForwardTargets } from '../../cli/render/forward-targets.js';

test('sinkConsumes: a topic named in topics, or matching topics.regex as a whole', () => {
  const listed = { topics: ['orders', 'payments'], active: [] };
  assert.equal(sinkConsumes(listed, 'orders'), true);
  assert.equal(sinkConsumes(listed, 'orders-dlq'), false);
  const pattern = { topics: [], regex: 'orders\\..*', active: ['orders.eu'] };
  assert.equal(sinkConsumes(pattern, 'orders.us'), true);
  assert.equal(sinkConsumes(pattern, 'x.orders.us'), false, 'the whole name must match, as Java\'s Pattern.matches');
  assert.match(describeSinkTopics(pattern), /topics.regex "orders\\\\..\*" \(Connect reports it has used: orders.eu\)/);
});

test('sinkForwardTargets: only offsets past the log end; removals and unknown partitions are not flagged', () => {
  const topics = new Map([['t', { partitions: 2, endOffsets: new Map([[0, 200], [1, 0]]) }]]);
  const forward = sinkForwardTargets([
    { partition: { kafka_topic: 't', kafka_partition: 0 }, offset: { kafka_offset: 200 } },
    { partition: { kafka_topic: 't', kafka_partition: 0 }, offset: { kafka_offset: 99999 } },
    { partition: { kafka_topic: 't', kafka_partition: '1' }, offset: { kafka_offset: '5' } },
    { partition: { kafka_topic: 't', kafka_partition: 1 }, offset: null },
    { partition: { kafka_topic: 'u', kafka_partition: 0 }, offset: { kafka_offset: 7 } },
  ], topics);
  assert.deepEqual(forward.map((f) => [f.index, f.target, f.end]), [[1, 99999, 200], [2, 5, 0]]);
  assert.match(describeForwardTargets(forward).join('\n'), /kafka_offset 99999, but the log ends at 200/);
  assert.deepEqual(sinkForwardTargets([], undefined), []);
});
