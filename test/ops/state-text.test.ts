// How a connector's live state is put in words for the operator (abandon, the end of a run, a move).
// Real parts: none (the code under test, in this process).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { describeState, stateTextBefore } from '../../src/ops/run/failure-text.js';

test('a task that is not running is named beside the connector state', () => {
  assert.equal(describeState({ state: 'RUNNING', tasks: [{ id: 0, state: 'RUNNING' }] }), 'RUNNING');
  assert.equal(describeState({ state: 'RUNNING', tasks: [{ id: 0, state: 'RUNNING' }, { id: 1, state: 'FAILED' }] }), 'RUNNING with task 1 FAILED');
  assert.equal(describeState({ state: 'PAUSED', tasks: [{ id: 0, state: 'PAUSED' }, { id: 1, state: 'UNASSIGNED' }] }), 'PAUSED with task 1 UNASSIGNED');
  assert.equal(describeState({ state: 'RUNNING', tasks: [{ id: 0, state: 'UNASSIGNED' }] }), 'RUNNING with task 0 UNASSIGNED');
});

// Seen on Kafka 4.4 with a neighbour rebalancing: GET /status right after a stop answered
// STOPPED with task 0 UNASSIGNED, and half a second later STOPPED with no tasks. `runs abandon`
// printed the first as if the task were waiting for a worker.
test('a STOPPED connector is STOPPED: the UNASSIGNED status its stopped task leaves for a moment is not shown', () => {
  assert.equal(describeState({ state: 'STOPPED', tasks: [{ id: 0, state: 'UNASSIGNED' }] }), 'STOPPED');
  assert.equal(describeState({ state: 'STOPPED', tasks: [] }), 'STOPPED');
  assert.equal(describeState({ state: 'STOPPED', tasks: [{ id: 0, state: 'FAILED' }] }), 'STOPPED with task 0 FAILED');
  assert.equal(stateTextBefore('STOPPED', [{ id: 0, state: 'UNASSIGNED' }]), 'STOPPED');
});
