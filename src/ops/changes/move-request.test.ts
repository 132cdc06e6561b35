// A move request's document is the plan as approved: a row edited in the store is refused by its
// digest, and the move planned again is refused when its configuration, class or clusters differ.
// The workers: a sender whose Connect lists no connectors (each cluster's members are the worker reached).
// Real parts: none (the code under test, in this process).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import type { HttpSender } from '../../http/client.js';
import { checkMoveRequest, moveRequestDoc, readMoveRequest, type MovePlanFacts } from './move-request.js';

const none: HttpSender = { send: async () => ({ status: 404, headers: {}, body: Buffer.from('{}') }) as never };
const plan: MovePlanFacts = {
  operation: 'move',
  connector: 'orders',
  targetName: 'orders',
  connectorType: 'source',
  stateBefore: 'RUNNING',
  stateAfter: 'RUNNING',
  sourceAfter: 'delete',
  from: { url: 'http://127.0.0.1:8083', key: 'kafka:A' },
  to: { url: 'http://127.0.0.1:9083', key: 'kafka:A' },
  plugin: { class: 'FileStreamSource' },
  config: { file: '/in', topic: 't' },
  currentOffsets: [{ partition: { filename: '/in' }, offset: { position: 3 } }],
};
const by = { plannedBy: { user: 'alice@h', via: 'cli' }, now: new Date('2026-12-04T10:00:00Z') };
const clusters = { from: none, to: none };

test('a move request read back is the one written; an edited one is refused by its digest', async () => {
  const doc = await moveRequestDoc(plan, clusters, { keepSource: true }, by);
  assert.deepEqual(readMoveRequest(JSON.parse(JSON.stringify(doc)), 'r'), doc);
  assert.deepEqual(doc.from.members, ['127.0.0.1:8083']);
  assert.equal((doc as unknown as { config?: unknown }).config, undefined, 'the values of the configuration are not kept, only its digest');
  assert.throws(() => readMoveRequest({ ...doc, to: { ...doc.to, url: 'http://elsewhere:8083' } }, 'r'), /changed after it was requested/);
});

test('the move planned again must be the one approved: same clusters, class and configuration', async () => {
  const doc = await moveRequestDoc(plan, clusters, {}, by);
  await checkMoveRequest(doc, { ...plan, currentOffsets: [] }, clusters);
  await assert.rejects(
    checkMoveRequest(doc, { ...plan, config: { ...plan.config, topic: 'u' } }, clusters),
    /configuration it would get on the target changed/,
  );
  await assert.rejects(checkMoveRequest(doc, { ...plan, to: { ...plan.to, key: 'kafka:B' } }, clusters), /the target cluster was kafka:A .* kafka:B now/);
  await assert.rejects(checkMoveRequest(doc, { ...plan, plugin: { class: 'Other' } }, clusters), /connector.class FileStreamSource when requested, Other now/);
});
