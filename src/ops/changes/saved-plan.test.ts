// Real parts: a loopback HTTP server.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { sourcePlan } from '../../../test/support/plans.js';
import { digestOf, readSavedPlan, savePlan } from './saved-plan.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpClient } from '../../http/client.js';
import { checkSavedPlan, identityDifferences } from './check.js';
import { OpsError } from '../errors.js';

const plan = sourcePlan;

const by = { user: 'alice@laptop', via: 'cli' as const, osUser: 'alice', host: 'laptop' };

test('a saved plan survives JSON and is read back with its digest checked', () => {
  const doc = savePlan([plan('a'), plan('b')], { plannedBy: by, now: new Date('2026-12-01T09:00:00Z'), selection: '--selector ^[ab]$' });
  assert.match(doc.digest, /^sha256:[0-9a-f]{64}$/);
  const read = readSavedPlan(JSON.parse(JSON.stringify(doc, null, 2)), 'plan.json');
  assert.deepEqual(read, doc);
  // Key order and whitespace are not content: the digest is over canonical JSON.
  const reordered = Object.fromEntries(Object.entries(JSON.parse(JSON.stringify(doc))).reverse());
  assert.equal(readSavedPlan(reordered, 'plan.json').digest, doc.digest);
});

test('an edited plan is refused, naming the part that was edited', () => {
  const doc = JSON.parse(JSON.stringify(savePlan([plan('a'), plan('b')], { plannedBy: by }))) as ReturnType<typeof savePlan>;
  doc.plans[1]!.inputs.offsets = [{ partition: { filename: '/data/a.txt' }, offset: { position: 5 } }];
  assert.throws(() => readSavedPlan(doc, 'plan.json'), (err: unknown) => {
    assert.ok(err instanceof OpsError);
    assert.equal(err.code, 'E_PLAN_INVALID');
    assert.match(err.message, /plan\.json was changed after it was written: .*\(edited: connector b\)/);
    return true;
  });
  const who = JSON.parse(JSON.stringify(savePlan([plan('a')], { plannedBy: by }))) as ReturnType<typeof savePlan>;
  who.plannedBy.user = 'mallory@laptop';
  assert.throws(() => readSavedPlan(who, 'p'), /edited: header/);
  // A recomputed digest passes the digest (it is no signature) but not the structure checks.
  const forged = JSON.parse(JSON.stringify(savePlan([plan('a')], { plannedBy: by }))) as ReturnType<typeof savePlan>;
  (forged as { operation: string }).operation = 'resume';
  const { digest: _d, parts: _p, ...content } = forged;
  forged.digest = digestOf(content);
  assert.throws(() => readSavedPlan(forged, 'p'), /operation "resume" cannot be applied/);
});

test('what is not a saved plan is refused as such', () => {
  assert.throws(() => readSavedPlan([], 'p'), /is not a saved plan/);
  assert.throws(() => readSavedPlan({ format: 'offsetctl-plan/9' }, 'p'), /format is "offsetctl-plan\/9"/);
  assert.throws(() => readSavedPlan({ format: 'offsetctl-plan/1' }, 'p'), /has no digest/);
});

test('resume plans, and plans of two operations or clusters, are not saved', () => {
  assert.throws(() => savePlan([plan('a', 'resume')], { plannedBy: by }), /`runs resume` finishes a run that already started/);
  assert.throws(() => savePlan([plan('a'), plan('b', 'reset')], { plannedBy: by }), /one operation on one cluster/);
  assert.throws(() => savePlan([], { plannedBy: by }), /at least one connector/);
});

test('a plan older than the maximum age, or from the future, is refused before anything is read', async () => {
  const saved = savePlan([plan('a')], { plannedBy: by, now: new Date('2026-12-01T09:00:00Z') });
  // Any read would throw here: the age is checked first.
  const ctx = { url: 'http://127.0.0.1:1', http: { send: () => { throw new Error('read'); } } as never, store: {} as never };
  await assert.rejects(checkSavedPlan(ctx, saved, { now: new Date('2026-12-02T09:00:01Z') }), /made 24 h ago .*older than the maximum age of 24 h/);
  await assert.rejects(checkSavedPlan(ctx, saved, { now: new Date('2026-12-01T10:00:00Z'), maxAgeMs: 30 * 60_000 }), /made 60 min ago/);
  await assert.rejects(checkSavedPlan(ctx, saved, { now: new Date('2026-12-01T08:00:00Z') }), /60 min in the future/);
});

test('a connector that is another one now is named by what differs: Kafka cluster, type, class, topics', () => {
  const planned = sourcePlan('a').identity;
  assert.deepEqual(identityDifferences(planned, { ...planned }), []);
  assert.deepEqual(identityDifferences(planned, { ...planned, connectorClass: 'org.example.OtherSource' }), ['connector.class FileStreamSource when planned, org.example.OtherSource now']);
  assert.deepEqual(identityDifferences(planned, { ...planned, kafkaClusterId: 'xyz' }), ['Kafka cluster abc when planned, xyz now']);
  assert.deepEqual(identityDifferences(planned, { ...planned, type: 'sink', topics: { topics: 't' } }), [
    'a source connector when planned, a sink connector now', 'topic "t" when planned, (not set) now', 'topics (not set) when planned, "t" now',
  ]);
  // A worker that cannot say which Kafka cluster it serves is not "another cluster" by that alone.
  const { kafkaClusterId: _id, ...unknown } = planned;
  assert.deepEqual(identityDifferences(planned, unknown), []);
});

test('a plan applied through a worker of another Kafka cluster is refused before any connector is read', async () => {
  // A worker root answering for Kafka cluster "xyz" (the plan's is "abc"); any other request fails the test.
  const asked: string[] = [];
  const server = createServer((req, res) => {
    asked.push(`${req.method} ${req.url}`);
    res.setHeader('content-type', 'application/json');
    res.end(req.url === '/' ? JSON.stringify({ version: '4.4.0', commit: 'c', kafka_cluster_id: 'xyz' }) : '{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const http = new HttpClient();
  try {
    const saved = savePlan([sourcePlan('a')], { plannedBy: by });
    await assert.rejects(checkSavedPlan({ url, http, store: {} as never }, saved), (err: unknown) => {
      assert.ok(err instanceof OpsError);
      assert.equal(err.code, 'E_PLAN_STALE');
      assert.match(err.message, /made for cluster .*abc.* but http:\/\/127\.0\.0\.1:\d+ serves .*xyz.*: another cluster; nothing was changed/);
      return true;
    });
    assert.deepEqual([...new Set(asked)], ['GET /']);
  } finally {
    await http.close();
    server.close();
  }
});

test('a plan applied through a worker that cannot be reached is E_UNREACHABLE, not "another cluster"', async () => {
  // A port that was free a moment ago and has no listener now: Connect is down, the cluster is the same.
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  const http = new HttpClient();
  try {
    const saved = savePlan([sourcePlan('a')], { plannedBy: by });
    await assert.rejects(checkSavedPlan({ url, http, store: {} as never }, saved), (err: unknown) => {
      assert.ok(err instanceof OpsError);
      assert.equal(err.code, 'E_UNREACHABLE');
      assert.match(err.message, /connection refused.*nothing was changed/);
      assert.doesNotMatch(err.message, /another cluster/);
      return true;
    });
  } finally {
    await http.close();
  }
});

test('a plan applied through a worker whose GET / fails is refused as unknown, not "another cluster"', async () => {
  const server = createServer((_req, res) => { res.statusCode = 500; res.end('{"error_code":500,"message":"boom"}'); });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const http = new HttpClient();
  try {
    const saved = savePlan([sourcePlan('a')], { plannedBy: by });
    await assert.rejects(checkSavedPlan({ url, http, store: {} as never }, saved), (err: unknown) => {
      assert.ok(err instanceof OpsError);
      assert.equal(err.code, 'E_PREFLIGHT');
      assert.match(err.message, /answered GET \/ with HTTP 500, so which cluster it serves is unknown; nothing was changed/);
      return true;
    });
  } finally {
    await http.close();
    server.close();
  }
});
