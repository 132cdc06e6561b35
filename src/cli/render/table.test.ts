// Real parts: none (the code under test, in this process).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { renderTable } from './table.js';

test('columns are padded to the widest cell, numbers can be right-aligned, no trailing spaces', () => {
  const text = renderTable(['NAME', 'TASKS', 'STATE'], [['my-sink', '12', 'RUNNING'], ['s', '3', '']], ['left', 'right']);
  assert.equal(text, ['NAME     TASKS  STATE', 'my-sink     12  RUNNING', 's            3'].join('\n'));
});

test('headers are upper-cased, data keys included, so every table uses one case', () => {
  assert.equal(renderTable(['kafka_topic', 'offset.kafka_offset'], [['t', '1']]).split('\n')[0], 'KAFKA_TOPIC  OFFSET.KAFKA_OFFSET');
});
