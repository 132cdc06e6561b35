import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite from 'better-sqlite3';
import { registerSecret } from '../http/redact.js';
import { openStore, urlKey, type Store } from './index.js';

function withStore(fn: (store: Store, dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'offsetctl-store-'));
  const store = openStore(dir);
  try {
    fn(store, dir);
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const CLUSTER = 'http://127.0.0.1:8083';
const newRun = (connector = 'orders-sink') => ({
  clusterUrl: CLUSTER, connector, operation: 'rewind' as const,
  workflowFile: 'workflows/rewind-connector-offsets.arazzo.yaml', workflowId: 'rewind-connector-offsets',
  inputs: { connectorName: connector, offsets: [] },
});

/** A pid that certainly belonged to a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

test('a snapshot survives closing and reopening the store, offsets intact', () => {
  const dir = mkdtempSync(join(tmpdir(), 'offsetctl-store-'));
  try {
    const offsets = [{ partition: { kafka_topic: 't', kafka_partition: 0 }, offset: { kafka_offset: 42 } }];
    let id: string;
    {
      const store = openStore(dir);
      id = store.saveSnapshot({ clusterUrl: CLUSTER, connector: 'c', connectorType: 'sink', stateBefore: 'RUNNING', offsets }).id;
      store.close();
    }
    const store = openStore(dir);
    const snap = store.getSnapshot(id);
    assert.deepEqual(snap.offsets, offsets);
    assert.equal(snap.partitions, 1);
    assert.equal(snap.stateBefore, 'RUNNING');
    assert.equal(snap.connectorType, 'sink');
    store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('latestSnapshot picks the newest snapshot of that connector on that cluster only', () => {
  withStore((store) => {
    const base = { connectorType: 'source' as const, stateBefore: 'RUNNING' };
    store.saveSnapshot({ ...base, clusterUrl: CLUSTER, connector: 'a', offsets: [1] }, new Date('2026-01-01T00:00:00Z'));
    const newer = store.saveSnapshot({ ...base, clusterUrl: CLUSTER, connector: 'a', offsets: [2] }, new Date('2026-01-02T00:00:00Z'));
    store.saveSnapshot({ ...base, clusterUrl: 'http://other:8083', connector: 'a', offsets: [3] }, new Date('2026-01-03T00:00:00Z'));
    store.saveSnapshot({ ...base, clusterUrl: CLUSTER, connector: 'b', offsets: [4] }, new Date('2026-01-04T00:00:00Z'));
    assert.equal(store.latestSnapshot(CLUSTER, 'a')?.id, newer.id);
    assert.deepEqual(store.latestSnapshot(CLUSTER, 'a')?.offsets, [2]);
    assert.equal(store.latestSnapshot(CLUSTER, 'nope'), undefined);
    assert.deepEqual(store.listSnapshots({ connector: 'a' }).map((s) => s.offsets.length), [0, 0, 0]);
    assert.equal(store.listSnapshots().length, 4);
  });
});

test('a second run on the same connector is refused naming the first run and its pid', () => {
  withStore((store) => {
    const first = store.beginRun(newRun());
    assert.throws(() => store.beginRun(newRun()), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'E_LOCKED');
      assert.match(err.message, new RegExp(first.id));
      assert.match(err.message, new RegExp(`pid ${process.pid}`));
      assert.match(err.message, /busy/);
      return true;
    });
    // Another connector is independent.
    store.beginRun(newRun('other'));
    store.finishRun(first.id, { status: 'succeeded', connectorState: 'RUNNING' });
    const again = store.beginRun(newRun());
    assert.notEqual(again.id, first.id);
    assert.equal(store.getRun(first.id).status, 'succeeded');
    assert.equal(store.getRun(first.id).connectorState, 'RUNNING');
  });
});

test('a lock whose process died is reported stale, resumable, and can be taken over by rollback', () => {
  withStore((store) => {
    const run = store.beginRun(newRun());
    // Simulate the holder dying: rewrite the pid of both the lock and the run to a dead one.
    const pid = deadPid();
    store.finishRun(run.id, { status: 'succeeded' });
    const dead = store.beginRun(newRun());
    rewritePid(store, dead.id, pid);
    assert.equal(store.lockOf(urlKey(CLUSTER), 'orders-sink')?.alive, false);
    assert.equal(store.getRun(dead.id).displayStatus, 'interrupted');
    assert.throws(() => store.beginRun(newRun()), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'E_LOCKED');
      assert.match(err.message, /stale/);
      assert.match(err.message, new RegExp(`runs resume ${dead.id}`));
      return true;
    });
    // runs resume: this process takes over the dead run.
    const resumed = store.takeOverRun(dead.id);
    assert.equal(resumed.pid, process.pid);
    assert.equal(store.lockOf(urlKey(CLUSTER), 'orders-sink')?.alive, true);
    // Kill it again; now a rollback takes over and the dead run becomes abandoned.
    rewritePid(store, dead.id, pid);
    const rollback = store.beginRun({ ...newRun(), operation: 'rollback' }, { takeOverStale: true });
    assert.equal(store.getRun(dead.id).status, 'abandoned');
    assert.equal(store.lockOf(urlKey(CLUSTER), 'orders-sink')?.runId, rollback.id);
  });
});

test('the journal keeps steps in order, tracks the last passed step and masks secrets', () => {
  withStore((store) => {
    registerSecret('s3cr3t-token');
    const run = store.beginRun({ ...newRun(), inputs: { connectorName: 'c', note: 'Bearer s3cr3t-token' } });
    store.recordStep(run.id, { workflowId: 'w', stepId: 'stopConnector', status: 'passed', outputs: {}, finishedAt: new Date().toISOString() });
    store.recordStep(run.id, { workflowId: 'w', stepId: 'captureOffsets', status: 'passed', outputs: { previousOffsets: [1, 2] }, finishedAt: new Date().toISOString() });
    store.recordStep(run.id, { workflowId: 'w', stepId: 'rewindOffsets', status: 'failed', outputs: {}, error: { code: 'E_HTTP', message: 'boom' }, finishedAt: new Date().toISOString() });
    store.recordEvent(run.id, { at: new Date().toISOString(), type: 'response.received', stepId: 'rewindOffsets', detail: { body: 'token s3cr3t-token leaked' } });
    const steps = store.stepsOf(run.id);
    assert.deepEqual(steps.map((s) => s.stepId), ['stopConnector', 'captureOffsets', 'rewindOffsets']);
    assert.deepEqual(steps[1]?.outputs, { previousOffsets: [1, 2] });
    assert.equal(steps[2]?.error?.code, 'E_HTTP');
    assert.equal(store.getRun(run.id).lastStep, 'captureOffsets');
    assert.doesNotMatch(JSON.stringify(store.eventsOf(run.id)), /s3cr3t-token/);
    assert.doesNotMatch(JSON.stringify(store.getRun(run.id).inputs), /s3cr3t-token/);
    store.updateRunContext(run.id, { snapshotId: 'snap-1' });
    store.updateRunContext(run.id, { offsetsMayHaveChanged: true });
    assert.deepEqual(store.getRun(run.id).context, { snapshotId: 'snap-1', offsetsMayHaveChanged: true });
  });
});

test('unknown run and snapshot ids give E_NOT_FOUND with a hint', () => {
  withStore((store) => {
    assert.throws(() => store.getRun('run-x'), /no run run-x .*offsetctl runs/);
    assert.throws(() => store.getSnapshot('snap-x'), /no snapshot snap-x .*offsetctl snapshots/);
  });
});

/** Test-only: point a run and its lock at another pid, as if another process had held them. */
function rewritePid(store: Store, runId: string, pid: number): void {
  // Reach the file through a second connection rather than private state.
  const second = openSecond(store.file);
  second.prepare('UPDATE runs SET pid = ? WHERE id = ?').run(pid, runId);
  second.prepare('UPDATE locks SET pid = ? WHERE run_id = ?').run(pid, runId);
  second.close();
}

function openSecond(file: string): BetterSqlite.Database {
  return new BetterSqlite(file);
}
