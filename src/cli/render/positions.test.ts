// Real parts: none (the code under test, in this process).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { planPositions, type PartitionFacts, type PositionTargets } from '../../ops/index.js';
import { positionTable } from '../../present/index.js';
import { renderPositions } from './positions.js';

const facts: PartitionFacts[] = [
  { topic: 'a', partition: 0, logStart: 0, logEnd: 30, committed: 20 },
  { topic: 'a', partition: 1, logStart: 0, logEnd: 30, committed: null },
  { topic: 'b', partition: 0, logStart: 10, logEnd: 100, committed: 50 },
];

test('a position plan renders one row per partition with its notes, and a summary', () => {
  const plan = planPositions({ kind: 'shift', by: 60 }, facts);
  const t = positionTable(plan);
  assert.deepEqual(t.rows.map((r) => [r[0], r[1], r[2], r[3], r[6], r[7], r[8]]), [
    ['a', '0', '20', '30', '0', '10', 'clamped to log end'],
    ['a', '1', '(none)', '(left as is)', '0', '0', 'never committed'],
    ['b', '0', '50', '100', '0', '50', 'clamped to log end'],
  ]);
  assert.match(t.summary, /^--shift-by \+60: 2 of 3 partition\(s\) to write, 0 record\(s\) to replay, 60 to skip, 1 never committed\.$/);
  const targets: PositionTargets = { connector: 's', connectorType: 'sink', connectorClass: 'x', plan, offsets: [], notes: ['looked up on 127.0.0.1:9092'] };
  const text = renderPositions(targets).split('\n');
  assert.equal(text[0], 'looked up on 127.0.0.1:9092');
  assert.match(text[1] ?? '', /^TOPIC\s+PARTITION\s+COMMITTED\s+TARGET\s+LOG START\s+LOG END\s+REPLAY\s+SKIP\s+NOTE$/);
  assert.equal(text.length, 1 + 1 + 3 + 1);
});

test('partitions already at their target are not counted as to write (issue 20, point 15: --to-latest said 3 of 3, then nothing to change)', () => {
  const atEnd: PartitionFacts[] = [
    { topic: 'a', partition: 0, logStart: 0, logEnd: 30, committed: 30 },
    { topic: 'a', partition: 1, logStart: 0, logEnd: 30, committed: 30 },
    { topic: 'a', partition: 2, logStart: 0, logEnd: 12, committed: 5 },
  ];
  assert.match(positionTable(planPositions({ kind: 'latest' }, atEnd.slice(0, 2))).summary, /^--to-latest: 0 of 2 partition\(s\) to write, 0 record\(s\) to replay, 0 to skip\.$/);
  assert.match(positionTable(planPositions({ kind: 'latest' }, atEnd)).summary, /^--to-latest: 1 of 3 partition\(s\) to write, 0 record\(s\) to replay, 7 to skip\.$/);
});
