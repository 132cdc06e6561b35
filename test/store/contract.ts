// The contract every Store backend must pass (SQLite today: sqlite.test.ts). A backend is given
// as `open(location, options)`; two stores opened on one location must see each other's data, as
// two offsetctl processes on one state folder (or one database) do.
import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { urlKey, type LockHolder, type NewRun, type Store, type StoreOptions } from '../../src/store/index.js';

export interface StoreBackend {
  name: string;
  /** A fresh, empty location (a folder, a database name). */
  newLocation(): string;
  open(location: string, options?: StoreOptions): Store;
  /** A store on that location whose login may set policies, where the backend's operators may not (PostgreSQL's split roles). */
  openAdmin?(location: string): Store;
}

const CLUSTER = 'http://127.0.0.1:8083';
const newRun = (connector = 'orders-sink', operation: NewRun['operation'] = 'rewind'): NewRun => ({
  clusterUrl: CLUSTER, connector, operation,
  workflowFile: 'workflows/rewind-connector-offsets.arazzo.yaml', workflowId: 'rewind-connector-offsets',
  inputs: { connectorName: connector, offsets: [] },
});

/** Holders this suite declares gone: the liveness check of every store it opens consults it. */
function liveness(): { dead: Set<number>; options: (owner?: LockHolder) => StoreOptions; deadOwner: () => LockHolder } {
  const dead = new Set<number>();
  let next = 900_000_000;
  return {
    dead,
    options: (owner) => ({ ...(owner ? { owner } : {}), isAlive: (h) => !dead.has(h.pid) }),
    deadOwner: () => {
      const pid = next++;
      dead.add(pid);
      return { pid, hostname: hostname() };
    },
  };
}

export function storeContract(backend: StoreBackend): void {
  describe(`Store contract: ${backend.name}`, () => {
    async function withStore(fn: (store: Store, open: (owner?: LockHolder) => Store, l: ReturnType<typeof liveness>, location: string) => Promise<void>): Promise<void> {
      const location = backend.newLocation();
      const l = liveness();
      const opened: Store[] = [];
      const open = (owner?: LockHolder): Store => {
        const s = backend.open(location, l.options(owner));
        opened.push(s);
        return s;
      };
      try {
        await fn(open(), open, l, location);
      } finally {
        for (const s of opened) await s.close();
      }
    }

    test('a snapshot survives closing and reopening, offsets exact (real values, nothing masked)', async () => {
      const location = backend.newLocation();
      const offsets = [{ partition: { kafka_topic: 't', kafka_partition: 0 }, offset: { kafka_offset: 42 } }, { partition: { filename: '/x/***/tok3n.txt' }, offset: { position: '9007199254740993' } }];
      const first = backend.open(location);
      const id = (await first.saveSnapshot({ clusterUrl: CLUSTER, connector: 'c', connectorType: 'sink', stateBefore: 'RUNNING', offsets })).id;
      await first.close();
      const store = backend.open(location);
      try {
        const snap = await store.getSnapshot(id);
        assert.deepEqual(snap.offsets, offsets);
        assert.equal(snap.partitions, 2);
        assert.equal(snap.stateBefore, 'RUNNING');
        assert.equal(snap.connectorType, 'sink');
      } finally {
        await store.close();
      }
    });

    test('latestSnapshot picks the newest of that connector on that cluster; listings are newest first without offsets', () =>
      withStore(async (store) => {
        const base = { connectorType: 'source' as const, stateBefore: 'RUNNING' };
        await store.saveSnapshot({ ...base, clusterUrl: CLUSTER, connector: 'a', offsets: [1] }, new Date('2026-01-01T00:00:00Z'));
        const newer = await store.saveSnapshot({ ...base, clusterUrl: CLUSTER, connector: 'a', offsets: [2] }, new Date('2026-01-02T00:00:00Z'));
        await store.saveSnapshot({ ...base, clusterUrl: 'http://other:8083', connector: 'a', offsets: [3] }, new Date('2026-01-03T00:00:00Z'));
        await store.saveSnapshot({ ...base, clusterUrl: CLUSTER, connector: 'b', offsets: [4] }, new Date('2026-01-04T00:00:00Z'));
        assert.equal((await store.latestSnapshot(CLUSTER, 'a'))?.id, newer.id);
        assert.deepEqual((await store.latestSnapshot(CLUSTER, 'a'))?.offsets, [2]);
        assert.equal(await store.latestSnapshot(CLUSTER, 'nope'), undefined);
        const listed = await store.listSnapshots({ connector: 'a' });
        assert.deepEqual(listed.map((s) => [s.takenAt.slice(0, 10), s.offsets.length, s.partitions]), [['2026-01-03', 0, 1], ['2026-01-02', 0, 1], ['2026-01-01', 0, 1]]);
        assert.equal((await store.listSnapshots()).length, 4);
        assert.equal((await store.listSnapshots({ clusterUrl: CLUSTER })).length, 3);
      }));

    test('lock keys are where the offsets live: same-named sources in two offsets topics run at once; a consumer group, or a wide key, conflicts', () =>
      withStore(async (store, open, l) => {
        const K = 'kafka:lockkeys';
        const at = (connector: string, lockKey: string): NewRun => ({ ...newRun(connector), clusterKey: K, lockKey });
        const other = open();
        // Two Connect clusters' offsets topics: the same source name twice, at once.
        const a = await store.beginRun(at('src-a', `${K}#offsets-topic:offsets-main`));
        const b = await other.beginRun(at('src-a', `${K}#offsets-topic:offsets-second`));
        assert.equal((await store.getRun(b.id)).context.lockKey, `${K}#offsets-topic:offsets-second`);
        // The wide key (the offsets topic unknown) conflicts with both narrow ones, naming the key in words.
        await assert.rejects(other.beginRun(at('src-a', K)), (err: Error & { code?: string }) => {
          assert.equal(err.code, 'E_LOCKED');
          assert.match(err.message, /connector src-a on offsets topic offsets-(main|second) on Kafka cluster lockkeys \(locked through/);
          return true;
        });
        await store.finishRun(a.id, { status: 'succeeded' });
        await other.finishRun(b.id, { status: 'succeeded' });
        // A wide lock blocks a narrow one of the same connector; another connector is free.
        const wide = await store.beginRun(at('src-a', K));
        await assert.rejects(other.beginRun(at('src-a', `${K}#offsets-topic:offsets-main`)), /connector src-a on Kafka cluster lockkeys \(locked through/);
        await other.beginRun(at('src-b', `${K}#offsets-topic:offsets-main`));
        await store.finishRun(wide.id, { status: 'succeeded' });
        // Two sinks whose offsets are one consumer group conflict, whatever their names.
        const sink = await store.beginRun(at('sink-a', `${K}#group:connect-sink-a`));
        await assert.rejects(other.beginRun(at('sink-a', `${K}#group:connect-sink-a`)), /connector sink-a on consumer group connect-sink-a on Kafka cluster lockkeys/);
        await assert.rejects(other.beginRun(at('sink-b', `${K}#group:connect-sink-a`)), /consumer group connect-sink-a on Kafka cluster lockkeys/);
        assert.equal((await store.lockOf(K, 'sink-a'))?.runId, sink.id);
        // A take-over locks the same narrow key again (the dead holder's run resumed).
        const dead = open(l.deadOwner());
        const died = await dead.beginRun(at('src-c', `${K}#offsets-topic:offsets-main`));
        const resumed = await other.takeOverRun(died.id);
        assert.equal(resumed.id, died.id);
        assert.equal((await store.lockOf(K, 'src-c'))?.clusterKey, `${K}#offsets-topic:offsets-main`);
        await other.beginRun(at('src-c', `${K}#offsets-topic:offsets-second`));
      }));

    test('the lock: a second run on the same connector is refused naming the first; another connector is independent; finishing releases it', () =>
      withStore(async (store, open) => {
        const first = await store.beginRun(newRun());
        const other = open();
        await assert.rejects(other.beginRun(newRun()), (err: Error & { code?: string }) => {
          assert.equal(err.code, 'E_LOCKED');
          assert.match(err.message, new RegExp(first.id));
          assert.match(err.message, new RegExp(`pid ${first.pid}`));
          assert.match(err.message, /busy/);
          return true;
        });
        await other.beginRun(newRun('other'));
        assert.equal((await store.lockOf(urlKey(CLUSTER), 'orders-sink'))?.runId, first.id);
        await store.finishRun(first.id, { status: 'succeeded', connectorState: 'RUNNING' });
        assert.equal(await store.lockOf(urlKey(CLUSTER), 'orders-sink'), undefined);
        const again = await other.beginRun(newRun());
        assert.notEqual(again.id, first.id);
        assert.equal((await store.getRun(first.id)).status, 'succeeded');
        assert.equal((await store.getRun(first.id)).connectorState, 'RUNNING');
      }));

    test('two stores racing for one connector: exactly one run gets the lock', () =>
      withStore(async (store, open) => {
        const stores = [store, open(), open(), open()];
        const results = await Promise.allSettled(stores.map((s) => s.beginRun(newRun('raced'))));
        assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
        for (const r of results) if (r.status === 'rejected') assert.equal((r.reason as { code?: string }).code, 'E_LOCKED');
      }));

    test('a lock whose holder is gone is stale: refused with resume advice, resumable, and taken over by rollback', () =>
      withStore(async (store, open, l) => {
        const deadOwner = l.deadOwner();
        const dead = await open(deadOwner).beginRun(newRun());
        assert.equal((await store.lockOf(urlKey(CLUSTER), 'orders-sink'))?.alive, false);
        assert.equal((await store.getRun(dead.id)).displayStatus, 'interrupted');
        await assert.rejects(store.beginRun(newRun()), (err: Error & { code?: string }) => {
          assert.equal(err.code, 'E_LOCKED');
          assert.match(err.message, /stale/);
          assert.match(err.message, new RegExp(`runs resume ${dead.id}`));
          return true;
        });
        // runs resume: this store's owner takes over the dead run.
        const resumed = await store.takeOverRun(dead.id);
        assert.equal(resumed.pid, process.pid);
        assert.equal((await store.lockOf(urlKey(CLUSTER), 'orders-sink'))?.alive, true);
        // A live holder's run cannot be taken over by another.
        await assert.rejects(open(l.deadOwner()).takeOverRun(dead.id), /busy/);
        // Now this holder dies too: a rollback takes over and the dead run becomes abandoned.
        l.dead.add(process.pid);
        const rollback = await open({ pid: 1, hostname: hostname() }).beginRun(newRun('orders-sink', 'rollback'), { takeOverStale: true });
        l.dead.delete(process.pid);
        assert.equal((await store.getRun(dead.id)).status, 'abandoned');
        assert.equal((await store.lockOf(urlKey(CLUSTER), 'orders-sink'))?.runId, rollback.id);
        await assert.rejects(store.takeOverRun(dead.id), /abandoned/);
      }));

    test('the journal keeps steps and events in order with real values; the run context merges', () =>
      withStore(async (store) => {
        const inputs = { connectorName: 'c', offsets: [{ partition: { filename: '/data/s3cr3t-token.txt' }, offset: { position: 1 } }] };
        const run = await store.beginRun({ ...newRun(), inputs });
        const at = new Date().toISOString();
        await store.recordStep(run.id, { workflowId: 'w', stepId: 'stopConnector', status: 'passed', outputs: {}, finishedAt: at });
        await store.recordStep(run.id, { workflowId: 'w', stepId: 'captureOffsets', status: 'passed', outputs: { previousOffsets: [1, 2] }, finishedAt: at });
        await store.recordStep(run.id, { workflowId: 'w', stepId: 'rewindOffsets', status: 'failed', outputs: {}, error: { code: 'E_HTTP', message: 'boom' }, finishedAt: at });
        await store.recordEvent(run.id, { at, type: 'step.started', stepId: 'stopConnector', detail: { attempt: 1 } });
        await store.recordEvent(run.id, { at, type: 'response.received', stepId: 'rewindOffsets', detail: { status: 500 } });
        const steps = await store.stepsOf(run.id);
        assert.deepEqual(steps.map((s) => [s.seq, s.stepId, s.status]), [[1, 'stopConnector', 'passed'], [2, 'captureOffsets', 'passed'], [3, 'rewindOffsets', 'failed']]);
        assert.deepEqual(steps[1]?.outputs, { previousOffsets: [1, 2] });
        assert.equal(steps[2]?.error?.code, 'E_HTTP');
        assert.deepEqual((await store.eventsOf(run.id)).map((e) => [e.seq, e.type, e.stepId, e.detail]), [[1, 'step.started', 'stopConnector', { attempt: 1 }], [2, 'response.received', 'rewindOffsets', { status: 500 }]]);
        // A batch continues the numbering, in order, and an empty batch writes nothing.
        await store.recordEvents(run.id, [
          { at, type: 'criterion.evaluated', stepId: 'rewindOffsets', detail: { passed: false } },
          { at, type: 'action.taken', stepId: 'rewindOffsets', detail: { action: 'retry' } },
          { at, type: 'request.sent', stepId: 'rewindOffsets', detail: { method: 'PATCH' } },
        ]);
        await store.recordEvents(run.id, []);
        await store.recordEvent(run.id, { at, type: 'step.finished', stepId: 'rewindOffsets', detail: { status: 'passed' } });
        assert.deepEqual((await store.eventsOf(run.id)).slice(2).map((e) => [e.seq, e.type]), [[3, 'criterion.evaluated'], [4, 'action.taken'], [5, 'request.sent'], [6, 'step.finished']]);
        const read = await store.getRun(run.id);
        assert.equal(read.lastStep, 'captureOffsets');
        assert.deepEqual(read.inputs, inputs, 'resume replays the inputs exactly');
        await store.updateRunContext(run.id, { snapshotId: 'snap-1' });
        await store.updateRunContext(run.id, { offsetsMayHaveChanged: true });
        assert.deepEqual((await store.getRun(run.id)).context, { snapshotId: 'snap-1', offsetsMayHaveChanged: true });
      }));

    test('listRuns: newest first, filtered by connector and cluster, limited', () =>
      withStore(async (store) => {
        const a = await store.beginRun(newRun('a'), { now: new Date('2026-01-01T00:00:00Z') });
        const b = await store.beginRun(newRun('b'), { now: new Date('2026-01-02T00:00:00Z') });
        assert.deepEqual((await store.listRuns()).map((r) => r.id), [b.id, a.id]);
        assert.deepEqual((await store.listRuns({ connector: 'a' })).map((r) => r.id), [a.id]);
        assert.deepEqual((await store.listRuns({ clusterUrl: 'http://elsewhere:1' })).map((r) => r.id), []);
        assert.deepEqual((await store.listRuns({ limit: 1 })).map((r) => r.id), [b.id]);
      }));

    test('a run opened with a batch id keeps it in its context; listRuns filters by batch', () =>
      withStore(async (store) => {
        const a = await store.beginRun({ ...newRun('a'), context: { batchId: 'batch-1' } }, { now: new Date('2026-01-01T00:00:00Z') });
        const b = await store.beginRun({ ...newRun('b'), context: { batchId: 'batch-2' } }, { now: new Date('2026-01-02T00:00:00Z') });
        const c = await store.beginRun({ ...newRun('c'), context: { batchId: 'batch-1' } }, { now: new Date('2026-01-03T00:00:00Z') });
        await store.beginRun(newRun('d'), { now: new Date('2026-01-04T00:00:00Z') });
        assert.equal((await store.getRun(a.id)).context.batchId, 'batch-1');
        await store.updateRunContext(a.id, { snapshotId: 'snap-1' });
        assert.deepEqual((await store.getRun(a.id)).context, { batchId: 'batch-1', snapshotId: 'snap-1' }, 'later context patches keep the batch id');
        assert.deepEqual((await store.listRuns({ batchId: 'batch-1' })).map((r) => r.id), [c.id, a.id]);
        assert.deepEqual((await store.listRuns({ batchId: 'batch-2' })).map((r) => r.id), [b.id]);
        assert.deepEqual((await store.listRuns({ batchId: 'batch-1', connector: 'c' })).map((r) => r.id), [c.id]);
        assert.deepEqual((await store.listRuns({ batchId: 'batch-x' })).map((r) => r.id), []);
        assert.equal((await store.listRuns()).length, 4);
      }));

    test('a batch is recorded with its members before any run; another store sees it; an id is saved once', () =>
      withStore(async (store, open) => {
        const members = [{ connector: 'a', offsets: [{ partition: { filename: '/a.txt' }, offset: { position: 1 } }] }, { connector: 'b' }];
        const saved = await store.saveBatch({ id: 'batch-20261201-000000-abcd', clusterUrl: CLUSTER, clusterKey: 'kafka:abc', operation: 'rewind', resumeAfter: 'auto', members });
        assert.match(saved.createdAt, /^\d{4}-\d{2}-\d{2}T/);
        const read = await open().getBatch('batch-20261201-000000-abcd');
        assert.deepEqual(read, { ...saved, members }, 'members and their offsets come back exact');
        assert.deepEqual(await open().listBatches(), [{ ...saved, members }], 'listed, for store import');
        assert.equal(await store.getBatch('batch-none'), undefined);
        await assert.rejects(store.saveBatch({ ...saved, members: [] }), (err: Error & { code?: string }) => err.code === 'E_STORE');
      }));

    test('cluster keys: two URLs of one cluster share the lock; a url: lock still holds; runs and snapshots are found by key', () =>
      withStore(async (store, open) => {
        const keyed = (url: string, connector = 'keyed'): NewRun => ({ ...newRun(connector), clusterUrl: url, clusterKey: 'kafka:abc' });
        const first = await store.beginRun(keyed('http://127.0.0.1:8083'));
        assert.equal(first.clusterKey, 'kafka:abc');
        await assert.rejects(open().beginRun(keyed('http://localhost:8084')), (err: Error & { code?: string }) => {
          assert.equal(err.code, 'E_LOCKED');
          assert.match(err.message, /Kafka cluster abc \(locked through http:\/\/127\.0\.0\.1:8083\)/);
          return true;
        });
        const lock = await store.lockOf('kafka:abc', 'keyed');
        assert.deepEqual([lock?.runId, lock?.clusterKey, lock?.clusterUrl], [first.id, 'kafka:abc', 'http://127.0.0.1:8083']);
        await store.finishRun(first.id, { status: 'succeeded' });
        // A run without a known identity is keyed by its URL, and blocks a keyed run through that URL.
        const old = await store.beginRun(newRun('keyed'));
        assert.equal(old.clusterKey, urlKey(CLUSTER));
        await assert.rejects(store.beginRun(keyed(CLUSTER)), (err: Error & { code?: string }) => err.code === 'E_LOCKED');
        await store.finishRun(old.id, { status: 'succeeded' });
        // Runs are listed by key: every URL of the cluster, and the url: rows of the one asked through.
        const other = await store.beginRun({ ...newRun('other'), clusterUrl: 'http://other:1', clusterKey: 'kafka:zzz' });
        await store.finishRun(other.id, { status: 'succeeded' });
        assert.deepEqual((await open().listRuns({ clusterKeys: ['kafka:abc'] })).map((r) => r.id), [first.id]);
        assert.deepEqual(new Set((await store.listRuns({ clusterKeys: ['kafka:abc', urlKey(CLUSTER)] })).map((r) => r.id)), new Set([first.id, old.id]));
        assert.deepEqual((await store.listRuns({ clusterKeys: ['kafka:abc'], connector: 'other' })).map((r) => r.id), []);
        assert.deepEqual((await store.listRuns({ clusterKeys: [] })).map((r) => r.id), []);

        const base = { connectorType: 'sink' as const, stateBefore: 'RUNNING', connector: 'keyed', offsets: [1] };
        const a = await store.saveSnapshot({ ...base, clusterUrl: 'http://127.0.0.1:8083', clusterKey: 'kafka:abc' }, new Date('2026-01-01T00:00:00Z'));
        const b = await store.saveSnapshot({ ...base, clusterUrl: CLUSTER }, new Date('2026-01-02T00:00:00Z'));
        await store.saveSnapshot({ ...base, clusterUrl: 'http://other:8083', clusterKey: 'kafka:zzz' }, new Date('2026-01-03T00:00:00Z'));
        assert.equal(b.clusterKey, urlKey(CLUSTER));
        assert.equal((await store.getSnapshot(a.id)).clusterKey, 'kafka:abc');
        assert.deepEqual((await store.listSnapshots({ connector: 'keyed', clusterKeys: ['kafka:abc', urlKey(CLUSTER)] })).map((s) => s.id), [b.id, a.id]);
        assert.deepEqual((await store.listSnapshots({ clusterKeys: [] })).map((s) => s.id), []);
      }));

    test('deleteSnapshots removes exactly those snapshots and counts them', () =>
      withStore(async (store) => {
        const base = { connectorType: 'source' as const, stateBefore: 'RUNNING', clusterUrl: CLUSTER, connector: 'p', offsets: [1] };
        const a = await store.saveSnapshot(base);
        const b = await store.saveSnapshot(base);
        const c = await store.saveSnapshot(base);
        assert.equal(await store.deleteSnapshots([a.id, c.id, 'snap-missing']), 2);
        assert.deepEqual((await store.listSnapshots({ connector: 'p' })).map((s) => s.id), [b.id]);
        await assert.rejects(store.getSnapshot(a.id), (err: Error & { code?: string }) => err.code === 'E_NOT_FOUND');
        assert.equal(await store.deleteSnapshots([]), 0);
      }));

    test('the audit trail: entries kept whole (actor, diff, counts), newest first, filtered by connector, time and cluster, seen by every store', () =>
      withStore(async (store, open) => {
        const alice = { user: 'alice@example.com', via: 'oidc' as const, issuer: 'http://127.0.0.1:9/', subject: 'a-1', groups: ['team-orders'], role: 'operator' };
        const ops = { user: 'ops@laptop', via: 'cli' as const, osUser: 'ops', host: 'laptop' };
        const diff = [{ change: 'changed' as const, partition: { kafka_topic: 'orders', kafka_partition: 0 }, from: { kafka_offset: 12 }, to: { kafka_offset: 0 } }];
        const first = await store.recordAudit({
          actor: alice, action: 'rewind', outcome: 'started', context: 'prod', clusterUrl: CLUSTER, clusterKey: 'kafka:abc', connector: 'orders-1',
          runId: 'run-1', diff, counts: { changed: 1, unchanged: 3 },
        }, new Date('2026-01-01T10:00:00Z'));
        assert.match(first.id, /^audit-20260101-100000-[0-9a-f]{8}$/);
        await open().recordAudit({ actor: ops, action: 'reset', outcome: 'refused', clusterUrl: CLUSTER, clusterKey: 'kafka:abc', connector: 'billing-1', message: 'busy' }, new Date('2026-01-01T11:00:00Z'));
        await store.recordAudit({ actor: alice, action: 'sign-in', outcome: 'done' }, new Date('2026-01-01T12:00:00Z'));
        await store.recordAudit({ actor: alice, action: 'rewind', outcome: 'succeeded', clusterUrl: 'http://other:1', clusterKey: 'kafka:zzz', connector: 'orders-1', runId: 'run-2', snapshotId: 'snap-2' }, new Date('2026-01-01T13:00:00Z'));
        const all = await store.listAudit();
        assert.deepEqual(all.map((e) => [e.at, e.action, e.outcome]), [
          ['2026-01-01T13:00:00.000Z', 'rewind', 'succeeded'], ['2026-01-01T12:00:00.000Z', 'sign-in', 'done'],
          ['2026-01-01T11:00:00.000Z', 'reset', 'refused'], ['2026-01-01T10:00:00.000Z', 'rewind', 'started'],
        ]);
        assert.deepEqual(all[3], { ...first });
        assert.deepEqual(all[3]?.actor, alice);
        assert.deepEqual(all[3]?.diff, diff);
        assert.deepEqual(all[3]?.counts, { changed: 1, unchanged: 3 });
        assert.equal(all[2]?.actor.user, 'ops@laptop', 'another store\'s entry is seen');
        assert.equal(all[1]?.connector, undefined);
        assert.deepEqual((await store.listAudit({ connector: 'orders-1' })).map((e) => e.runId), ['run-2', 'run-1']);
        assert.deepEqual((await store.listAudit({ since: new Date('2026-01-01T11:00:00Z') })).length, 3);
        assert.deepEqual((await store.listAudit({ clusterKeys: ['kafka:abc'] })).map((e) => e.connector), ['billing-1', 'orders-1']);
        // With the entries about no cluster (the sign-in), and the limit counted after the filter.
        assert.deepEqual((await store.listAudit({ clusterKeys: ['kafka:abc'], withoutCluster: true })).map((e) => e.action), ['sign-in', 'reset', 'rewind']);
        assert.deepEqual((await store.listAudit({ clusterKeys: ['kafka:abc'], withoutCluster: true, limit: 2 })).map((e) => e.action), ['sign-in', 'reset']);
        assert.deepEqual((await store.listAudit({ clusterKeys: [], withoutCluster: true })).map((e) => e.action), ['sign-in']);
        assert.deepEqual((await store.listAudit({ withoutCluster: true })).length, 4, 'without clusterKeys it changes nothing');
        assert.deepEqual((await store.listAudit({ limit: 1 })).map((e) => e.action), ['rewind']);
      }));

    test('unknown run and snapshot ids give E_NOT_FOUND with a hint', () =>
      withStore(async (store) => {
        await assert.rejects(store.getRun('run-x'), (err: Error & { code?: string }) => err.code === 'E_NOT_FOUND' && /no run run-x .*offsetctl runs/.test(err.message));
        await assert.rejects(store.getSnapshot('snap-x'), (err: Error & { code?: string }) => err.code === 'E_NOT_FOUND' && /no snapshot snap-x .*offsetctl snapshots/.test(err.message));
      }));

    test('change requests: recorded with the store\'s actor, moved on only from the status named, history in order, expiry, seen by another store', async () => {
      const location = backend.newLocation();
      // Two people: the names a face authenticated (a console's sign-in); the store adds its own facts.
      const alice = backend.open(location, { actor: { user: 'alice' } });
      const bob = backend.open(location, { actor: { user: 'bob' } });
      try {
        const t0 = new Date('2026-12-01T09:00:00.000Z');
        const plan = { format: 'offsetctl-plan/1', plans: [{ connector: 'orders-sink', targetOffsets: [{ partition: { kafka_topic: 't', kafka_partition: 0 }, offset: { kafka_offset: 5 } }] }] };
        const request = { clusterUrl: CLUSTER, clusterKey: 'kafka:abc', operation: 'rewind', connectors: ['orders-sink', 'billing-sink'], contextName: 'prod', plan, digest: 'sha256:00', expiresAt: '2026-12-02T09:00:00.000Z' };
        const made = await alice.createChangeRequest(request, t0);
        assert.match(made.id, /^chg-20261201-090000-[0-9a-f]{4}$/);
        assert.equal(made.status, 'pending');
        assert.equal(made.requestedBy.user, 'alice');
        assert.equal(made.requestedAt, t0.toISOString());
        assert.deepEqual(made.plan, plan);
        assert.deepEqual(made.history.map((h) => [h.action, h.actor.user]), [['requested', 'alice']]);
        assert.equal((await bob.whoAmI()).user, 'bob');

        const seen = await bob.getChangeRequest(made.id, t0);
        assert.deepEqual({ ...seen, history: seen.history.length }, { ...made, history: 1 });
        assert.deepEqual((await bob.listChangeRequests({ connector: 'billing-sink' }, t0)).map((r) => r.id), [made.id]);
        assert.deepEqual(await bob.listChangeRequests({ connector: 'other' }, t0), []);
        assert.deepEqual((await bob.listChangeRequests({ status: 'pending' }, t0)).map((r) => r.id), [made.id]);

        const t1 = new Date('2026-12-01T10:00:00.000Z');
        const approved = await bob.moveChangeRequest(made.id, { from: ['pending'], to: 'approved', notExpired: true }, t1);
        assert.equal(approved.status, 'approved');
        assert.deepEqual(approved.history.map((h) => [h.action, h.actor.user, h.at]), [['requested', 'alice', t0.toISOString()], ['approved', 'bob', t1.toISOString()]]);
        // A second move from pending lost the race: refused, nothing changed.
        await assert.rejects(alice.moveChangeRequest(made.id, { from: ['pending'], to: 'rejected', reason: 'no' }, t1),
          (err: Error & { code?: string }) => err.code === 'E_CHANGED' && /is approved \(approved by bob/.test(err.message));
        assert.equal((await alice.getChangeRequest(made.id, t1)).status, 'approved');

        const applying = await alice.moveChangeRequest(made.id, { from: ['approved'], to: 'applying', notExpired: true }, t1);
        assert.equal(applying.status, 'applying');
        const applied = await alice.moveChangeRequest(made.id, { from: ['applying'], to: 'applied', runIds: ['run-1', 'run-2'], batchId: 'batch-1', message: 'done' }, t1);
        assert.deepEqual(applied.history.at(-1), { ...applied.history.at(-1), action: 'applied', runIds: ['run-1', 'run-2'], batchId: 'batch-1', message: 'done' });

        // Expiry: a pending request past expiresAt reads expired and cannot be approved.
        const late = await alice.createChangeRequest({ ...request, expiresAt: '2026-12-01T09:30:00.000Z' }, t0);
        assert.equal((await bob.getChangeRequest(late.id, t1)).displayStatus, 'expired');
        assert.equal((await bob.getChangeRequest(late.id, t0)).displayStatus, 'pending');
        await assert.rejects(bob.moveChangeRequest(late.id, { from: ['pending'], to: 'approved', notExpired: true }, t1),
          (err: Error & { code?: string }) => err.code === 'E_CHANGED' && /expired at 2026-12-01T09:30:00.000Z/.test(err.message));
        // Rejecting is still possible: it only closes the request.
        const rejected = await bob.moveChangeRequest(late.id, { from: ['pending'], to: 'rejected', reason: 'too late' }, t1);
        assert.equal(rejected.history.at(-1)?.reason, 'too late');
        assert.deepEqual((await alice.listChangeRequests({}, t1)).map((r) => r.id), [late.id, made.id]);
        await assert.rejects(alice.getChangeRequest('chg-x'), (err: Error & { code?: string }) => err.code === 'E_NOT_FOUND' && /offsetctl changes list/.test(err.message));
      } finally {
        await alice.close();
        await bob.close();
      }
    });

    test('policies: one per cluster, connector pattern and actions, replaced when set again, listed by cluster, seen by another store', () =>
      withStore(async (operator, open, _l, location) => {
        const store = backend.openAdmin?.(location) ?? operator;
        const a = await store.setPolicy({ clusterKey: 'kafka:one', context: 'prod', connectors: '^orders-', requireApproval: true, actor: { via: 'cli' } });
        assert.match(a.id, /^pol-/);
        assert.deepEqual([a.clusterKey, a.connectors, a.actions, a.requireApproval, a.context], ['kafka:one', '^orders-', undefined, true, 'prod']);
        assert.equal(typeof a.setBy.user, 'string');
        await store.setPolicy({ clusterKey: 'kafka:one', actions: ['stop', 'rewind'], requireApproval: true });
        await store.setPolicy({ clusterKey: 'kafka:two', requireApproval: true });
        // The same scope again (actions in another order) replaces it.
        const off = await store.setPolicy({ clusterKey: 'kafka:one', actions: ['rewind', 'stop'], requireApproval: false });
        const other = open();
        const one = await other.listPolicies({ clusterKeys: ['kafka:one'] });
        assert.deepEqual(one.map((p) => [p.connectors ?? '', p.actions ?? [], p.requireApproval]).sort(), [['', ['rewind', 'stop'], false], ['^orders-', [], true]]);
        assert.ok(one.some((p) => p.id === off.id));
        assert.equal((await other.listPolicies()).length, 3);
        assert.deepEqual(await other.listPolicies({ clusterKeys: [] }), []);
        if (store !== operator) await store.close();
      }));
  });
}
