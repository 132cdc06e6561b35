// A state folder written before runs, snapshots and locks were keyed by the cluster's identity
// (schema version 1) is upgraded in place: its rows keep a `url:<url>` key, so the lock and the
// snapshots are still found through that URL, and new rows use the identity. Files at versions 2
// and 3 (before actors, before the audit trail) are upgraded too, their rows kept.
// Real parts: a SQLite store file.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from './driver.js';
import { openStore, STORE_FILE } from '../index.js';
import { MIGRATIONS } from './schema.js';

const URL = 'http://127.0.0.1:8083';

/** The version-1 tables, as the first release created them, with one run, its snapshot and a lock. */
function writeVersion1Store(dir: string, lockPid: number): void {
  const db = openDatabase(join(dir, STORE_FILE));
  db.exec(`
    CREATE TABLE runs (id TEXT PRIMARY KEY, cluster_url TEXT NOT NULL, connector TEXT NOT NULL, operation TEXT NOT NULL, status TEXT NOT NULL,
      started_at TEXT NOT NULL, finished_at TEXT, workflow_file TEXT NOT NULL, workflow_id TEXT NOT NULL, inputs TEXT NOT NULL, last_step TEXT,
      pid INTEGER NOT NULL, hostname TEXT NOT NULL, message TEXT, connector_state TEXT, context TEXT NOT NULL DEFAULT '{}');
    CREATE INDEX runs_by_connector ON runs (cluster_url, connector, started_at);
    CREATE TABLE run_steps (run_id TEXT NOT NULL REFERENCES runs(id), seq INTEGER NOT NULL, workflow_id TEXT NOT NULL, step_id TEXT NOT NULL,
      status TEXT NOT NULL, outputs TEXT NOT NULL, error TEXT, finished_at TEXT NOT NULL, PRIMARY KEY (run_id, seq));
    CREATE TABLE run_events (run_id TEXT NOT NULL REFERENCES runs(id), seq INTEGER NOT NULL, at TEXT NOT NULL, type TEXT NOT NULL, step_id TEXT,
      detail TEXT NOT NULL, PRIMARY KEY (run_id, seq));
    CREATE TABLE snapshots (id TEXT PRIMARY KEY, run_id TEXT REFERENCES runs(id), cluster_url TEXT NOT NULL, connector TEXT NOT NULL,
      connector_type TEXT NOT NULL, state_before TEXT NOT NULL, offsets TEXT NOT NULL, partitions INTEGER NOT NULL, taken_at TEXT NOT NULL);
    CREATE INDEX snapshots_by_connector ON snapshots (cluster_url, connector, taken_at);
    CREATE TABLE locks (cluster_url TEXT NOT NULL, connector TEXT NOT NULL, run_id TEXT NOT NULL, pid INTEGER NOT NULL, hostname TEXT NOT NULL,
      acquired_at TEXT NOT NULL, PRIMARY KEY (cluster_url, connector));
  `);
  db.prepare(`INSERT INTO runs VALUES ('run-old', ?, 'orders-sink', 'rewind', 'running', '2026-01-01T00:00:00Z', NULL, 'w.yaml', 'rewind-connector-offsets', '{}', 'captureOffsets', ?, ?, NULL, NULL, '{}')`)
    .run(URL, lockPid, (globalThis as { process: NodeJS.Process }).process.env.HOSTNAME ?? 'elsewhere');
  db.prepare(`INSERT INTO snapshots VALUES ('snap-old', 'run-old', ?, 'orders-sink', 'sink', 'RUNNING', ?, 1, '2026-01-01T00:00:01Z')`)
    .run(URL, JSON.stringify([{ partition: { kafka_topic: 't', kafka_partition: 0 }, offset: { kafka_offset: 5 } }]));
  db.prepare(`INSERT INTO locks VALUES (?, 'orders-sink', 'run-old', ?, 'another-host', '2026-01-01T00:00:00Z')`).run(URL, lockPid);
  db.exec('PRAGMA user_version = 1');
  db.close();
}

test('a version-1 store is migrated: old rows keep a url: key, their lock still holds, their snapshot is found', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'offsetctl-migrate-'));
  try {
    writeVersion1Store(dir, 4242);
    const store = openStore(dir);
    try {
      const snapshots = await store.listSnapshots({ connector: 'orders-sink', clusterKeys: ['kafka:abc', `url:${URL}`] });
      assert.deepEqual(snapshots.map((s) => [s.id, s.clusterKey]), [['snap-old', `url:${URL}`]]);
      assert.equal((await store.getSnapshot('snap-old')).partitions, 1);
      assert.equal((await store.getRun('run-old')).clusterKey, `url:${URL}`);
      // Rows from before actors were recorded name their process alone.
      assert.deepEqual((await store.getRun('run-old')).actor, { user: 'unknown', via: 'cli', osUser: 'unknown', host: (await store.getRun('run-old')).hostname, pid: (await store.getRun('run-old')).pid, version: 'unknown' });
      // The old lock (held on another host, so alive) still refuses a new run of that connector,
      // even one that now knows the cluster's identity.
      const held = await store.lockOf(`url:${URL}`, 'orders-sink');
      assert.equal(held?.runId, 'run-old');
      await assert.rejects(store.beginRun({ clusterUrl: URL, clusterKey: 'kafka:abc', connector: 'orders-sink', operation: 'rewind', workflowFile: 'w', workflowId: 'w', inputs: {} }), /busy: run run-old/);
      // New rows carry the identity; another URL of the same cluster shares the lock.
      const run = await store.beginRun({ clusterUrl: URL, clusterKey: 'kafka:abc', connector: 'other', operation: 'rewind', workflowFile: 'w', workflowId: 'w', inputs: {} });
      assert.equal(run.clusterKey, 'kafka:abc');
      await assert.rejects(store.beginRun({ clusterUrl: 'http://localhost:8083', clusterKey: 'kafka:abc', connector: 'other', operation: 'rewind', workflowFile: 'w', workflowId: 'w', inputs: {} }), /E_LOCKED|busy/);
    } finally {
      await store.close();
    }
    const db = openDatabase(join(dir, STORE_FILE));
    assert.equal(db.pragma('user_version', { simple: true }), MIGRATIONS.length, 'migrated to the newest schema');
    db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * A state folder at schema version `version`, made by the shipped migrations themselves (pinned
 * by schema.test.ts), with one finished run and its snapshot; from version 3 on the run names who
 * started it.
 */
function writeStoreAt(dir: string, version: number): void {
  const db = openDatabase(join(dir, STORE_FILE));
  for (const migration of MIGRATIONS.slice(0, version)) db.exec(migration);
  const actor = version >= 3 ? JSON.stringify({ user: 'ops', via: 'cli', osUser: 'ops', host: 'laptop-7', pid: 4242, version: '0.1.0' }) : undefined;
  db.prepare(`INSERT INTO runs (id, cluster_url, cluster_key, connector, operation, status, started_at, finished_at, workflow_file, workflow_id, inputs, pid, hostname, context${actor ? ', actor' : ''})
    VALUES ('run-old', ?, 'kafka:abc', 'orders-sink', 'rewind', 'succeeded', '2026-01-01T00:00:00Z', '2026-01-01T00:01:00Z', 'w.yaml', 'rewind-connector-offsets', '{}', 4242, 'laptop-7', '{}'${actor ? ', ?' : ''})`)
    .run(URL, ...(actor ? [actor] : []));
  db.prepare(`INSERT INTO snapshots (id, run_id, cluster_url, cluster_key, connector, connector_type, state_before, offsets, partitions, taken_at)
    VALUES ('snap-old', 'run-old', ?, 'kafka:abc', 'orders-sink', 'sink', 'RUNNING', '[]', 0, '2026-01-01T00:00:01Z')`).run(URL);
  db.exec(`PRAGMA user_version = ${version}`);
  db.close();
}

for (const version of [2, 3]) {
  test(`a version-${version} store is migrated to the newest schema: its run and snapshot are kept${version === 3 ? ' with their actor' : ''}, and the audit trail works`, async () => {
    assert.ok(MIGRATIONS.length >= 4, 'migration 4 (the audit trail) exists');
    const dir = mkdtempSync(join(tmpdir(), `offsetctl-migrate-v${version}-`));
    try {
      writeStoreAt(dir, version);
      const store = openStore(dir);
      try {
        const old = await store.getRun('run-old');
        assert.equal(old.status, 'succeeded');
        assert.deepEqual(old.actor, version >= 3
          ? { user: 'ops', via: 'cli', osUser: 'ops', host: 'laptop-7', pid: 4242, version: '0.1.0' }
          : { user: 'unknown', via: 'cli', osUser: 'unknown', host: 'laptop-7', pid: 4242, version: 'unknown' });
        assert.equal((await store.getSnapshot('snap-old')).runId, 'run-old');
        const entry = await store.recordAudit({ actor: { user: 'ops@laptop-7', via: 'cli', osUser: 'ops', host: 'laptop-7' }, action: 'rollback', outcome: 'started', connector: 'orders-sink', runId: 'run-new' });
        assert.deepEqual((await store.listAudit({ connector: 'orders-sink' })).map((e) => e.id), [entry.id]);
        const run = await store.beginRun({ clusterUrl: URL, clusterKey: 'kafka:abc', connector: 'orders-sink', operation: 'rollback', workflowFile: 'w', workflowId: 'w', inputs: {}, actor: { user: 'alice@example.com', via: 'console' } });
        assert.equal((await store.getRun(run.id)).actor.user, 'alice@example.com');
      } finally {
        await store.close();
      }
      const db = openDatabase(join(dir, STORE_FILE));
      assert.equal(db.pragma('user_version', { simple: true }), MIGRATIONS.length);
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
