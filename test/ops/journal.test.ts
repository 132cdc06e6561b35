// Real parts: a SQLite store file.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import type { RunEvent } from '../../src/arazzo/index.js';
import { RunJournal } from '../../src/ops/run/journal.js';
import { REWIND, RESET } from '../../src/ops/workflows/operations.js';
import { openStore, type Store } from '../../src/store/index.js';
import { tempDir } from '../support/connect.js';
import { registerSecret } from '../../src/http/redact.js';

const at = () => new Date().toISOString();
const started = (stepId: string): RunEvent => ({ type: 'step.started', workflowId: 'w', stepId, attempt: 1, at: at() });
const finished = (stepId: string, outputs: Record<string, unknown> = {}): RunEvent => ({ type: 'step.finished', workflowId: 'w', stepId, status: 'passed', outputs, at: at() });

const sinkOffsets = [{ partition: { kafka_topic: 't', kafka_partition: 0 }, offset: { kafka_offset: 9 } }];
const requested = [{ partition: { kafka_topic: 't', kafka_partition: 0 }, offset: { kafka_offset: 2 } }];

async function withJournal(spec = REWIND, fn: (journal: RunJournal, store: Store, controller: AbortController, runId: string) => Promise<void>): Promise<void> {
  const dir = tempDir('offsetctl-journal-');
  const store = openStore(dir);
  const inputs = { connectorName: 'orders-sink', offsets: requested };
  const run = await store.beginRun({ clusterUrl: 'http://c:8083', connector: 'orders-sink', operation: spec.operation as 'rewind', workflowFile: 'f', workflowId: 'w', inputs });
  const controller = new AbortController();
  const journal = new RunJournal({ store, run, spec, connectorType: 'sink', inputs, controller });
  return fn(journal, store, controller, run.id).finally(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
}

test('the snapshot step is stored as a snapshot with the state read first, before the change step starts', () =>
  withJournal(REWIND, async (journal, store, controller, runId) => {
    await journal.onEvent(finished('readInitialState', { initialState: 'RUNNING' }));
    await journal.onEvent(finished('captureOffsets', { previousOffsets: sinkOffsets }));
    const snapshot = (await store.latestSnapshot('http://c:8083', 'orders-sink'));
    assert.deepEqual(snapshot?.offsets, sinkOffsets);
    assert.equal(snapshot?.stateBefore, 'RUNNING');
    assert.equal(snapshot?.runId, runId);
    await journal.onEvent(started('rewindOffsets'));
    assert.equal(controller.signal.aborted, false);
    assert.deepEqual((await store.getRun(runId)).context, { stateBefore: 'RUNNING', snapshotId: snapshot?.id, offsetsMayHaveChanged: true });
    assert.equal((await store.getRun(runId)).lastStep, 'captureOffsets');
  }));

test('a change step that starts without a stored snapshot cancels the run', () =>
  withJournal(RESET, async (journal, _store, controller) => {
    await journal.onEvent(started('resetOffsets'));
    assert.equal(controller.signal.aborted, true);
    assert.equal(journal.safetyError?.code, 'E_NO_SNAPSHOT');
    assert.equal(journal.mutationStarted, false);
  }));

test('offsets read back different from the request cancel the run before the connector is resumed', () =>
  withJournal(REWIND, async (journal, _store, controller) => {
    await journal.onEvent(finished('verifyOffsets', { rewoundOffsets: sinkOffsets }));
    assert.equal(controller.signal.aborted, true);
    assert.equal(journal.safetyError?.code, 'E_VERIFY');
    assert.match(journal.safetyError?.message ?? '', /asked \{"kafka_offset":2\}, Connect reports \{"kafka_offset":9\}/);
  }));

test('offsets read back as requested let the run go on; the framework-managed message becomes a warning', () =>
  withJournal(REWIND, async (journal, _store, controller) => {
    await journal.onEvent(finished('rewindOffsets', { alterMessage: 'The Connect framework-managed offsets for this connector have been altered successfully. However, ...' }));
    await journal.onEvent(finished('verifyOffsets', { rewoundOffsets: [{ partition: { kafka_partition: 0, kafka_topic: 't' }, offset: { kafka_offset: 2 } }] }));
    assert.equal(controller.signal.aborted, false);
    assert.equal(journal.warnings.length, 1);
    assert.match(journal.warnings[0] ?? '', /framework-managed/);
  }));

test('the journal masks secrets in the events a person reads, but keeps step outputs and the snapshot exact', () =>
  withJournal(REWIND, async (journal, store, _controller, runId) => {
    registerSecret('planted-s3cret');
    const planted = [{ partition: { filename: '/data/planted-s3cret.txt' }, offset: { position: 4 } }];
    await journal.onEvent(finished('readInitialState', { initialState: 'RUNNING' }));
    await journal.onEvent({ type: 'response.received', workflowId: 'w', stepId: 'captureOffsets', status: 200, headers: {}, body: { offsets: planted }, durationMs: 1, at: at() });
    await journal.onEvent(finished('captureOffsets', { previousOffsets: planted }));
    assert.deepEqual((await store.latestSnapshot('http://c:8083', 'orders-sink'))?.offsets, planted);
    assert.deepEqual((await store.stepsOf(runId)).find((s) => s.stepId === 'captureOffsets')?.outputs, { previousOffsets: planted });
    const events = JSON.stringify((await store.eventsOf(runId)));
    assert.ok(events.includes('/data/***.txt'), events);
    assert.ok(!events.includes('planted-s3cret'), events);
  }));

test('a poll is two journal transactions: the request before it leaves, the rest of the step with its outcome', () =>
  withJournal(REWIND, async (journal, store, _controller, runId) => {
    const batches: string[][] = [];
    const recordEvents = store.recordEvents.bind(store);
    store.recordEvents = async (id, events) => {
      batches.push(events.map((e) => e.type));
      return recordEvents(id, events);
    };
    const poll = async (attempt: number): Promise<void> => {
      await journal.onEvent({ type: 'step.started', workflowId: 'w', stepId: 'waitForStopped', attempt, at: at() });
      await journal.onEvent({ type: 'request.sent', workflowId: 'w', stepId: 'waitForStopped', method: 'GET', url: 'http://c:8083/connectors/orders-sink/status', headers: {}, at: at() });
      // On disk before the answer comes: a kill while Kafka Connect works still shows what was asked.
      assert.equal((await store.eventsOf(runId)).at(-1)?.type, 'request.sent');
      await journal.onEvent({ type: 'response.received', workflowId: 'w', stepId: 'waitForStopped', status: 200, headers: {}, body: { connector: { state: 'RUNNING' } }, durationMs: 2, at: at() });
      await journal.onEvent({ type: 'criterion.evaluated', workflowId: 'w', stepId: 'waitForStopped', source: 'successCriteria', result: { passed: true, type: 'simple', condition: '$statusCode == 200' }, at: at() });
      await journal.onEvent({ type: 'step.finished', workflowId: 'w', stepId: 'waitForStopped', status: 'failed', outputs: {}, at: at() });
      await journal.onEvent({ type: 'action.taken', workflowId: 'w', stepId: 'waitForStopped', action: { name: 'pollUntilStopped', type: 'retry', retryAfter: 0.05 }, reason: 'onFailure', at: at() });
    };
    await poll(1);
    await poll(2);
    assert.deepEqual(batches, [
      ['step.started', 'request.sent'],
      ['response.received', 'criterion.evaluated', 'step.finished'],
      ['action.taken', 'step.started', 'request.sent'],
      ['response.received', 'criterion.evaluated', 'step.finished'],
    ]);
    // What is held back is written when the owner flushes at the end of the workflow.
    await journal.flush();
    assert.deepEqual((await store.eventsOf(runId)).map((e) => [e.seq, e.type]), [
      [1, 'step.started'], [2, 'request.sent'], [3, 'response.received'], [4, 'criterion.evaluated'], [5, 'step.finished'], [6, 'action.taken'],
      [7, 'step.started'], [8, 'request.sent'], [9, 'response.received'], [10, 'criterion.evaluated'], [11, 'step.finished'], [12, 'action.taken'],
    ]);
  }));

test('a change step with no answer (a reset, a timeout, Connect\'s 500 "Request timed out") has an unknown outcome; any other answer is known', () =>
  withJournal(REWIND, async (journal) => {
    const answered = (status: number, body: unknown): RunEvent => ({ type: 'response.received', workflowId: 'w', stepId: 'rewindOffsets', status, headers: {}, body, durationMs: 1, at: at() });
    assert.equal(journal.mutationOutcomeUnknown, false, 'not started');
    await journal.onEvent(finished('readInitialState', { initialState: 'RUNNING' }));
    await journal.onEvent(finished('captureOffsets', { previousOffsets: sinkOffsets }));
    await journal.onEvent(started('rewindOffsets'));
    assert.equal(journal.mutationOutcomeUnknown, true, 'sent, no answer yet');
    await journal.onEvent(answered(500, { error_code: 500, message: 'Request timed out' }));
    assert.equal(journal.mutationOutcomeUnknown, true, 'the herder may still apply it');
    await journal.onEvent(answered(500, { error_code: 500, message: 'Could not alter offsets' }));
    assert.equal(journal.mutationOutcomeUnknown, false, 'refused: Connect said so');
    await journal.onEvent({ type: 'step.started', workflowId: 'w', stepId: 'rewindOffsets', attempt: 2, at: at() });
    assert.equal(journal.mutationOutcomeUnknown, true, 'a second request, not answered yet');
    await journal.onEvent(answered(200, { message: 'ok' }));
    assert.equal(journal.mutationOutcomeUnknown, false);
  }));
