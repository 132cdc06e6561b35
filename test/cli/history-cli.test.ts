// The history commands' text and JSON on a SQLite store of their own: one order for `audit`'s
// text and JSON (oldest first; --reverse newest first) (issue 30, point 23).
// Real parts: a SQLite store file, the CLI in-process.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '../../src/store/index.js';
import { runInProcess } from '../support/in-process.js';

function isolated(): NodeJS.ProcessEnv {
  const home = mkdtempSync(join(tmpdir(), 'offsetctl-history-cli-'));
  return { OFFSETCTL_STORE: undefined, HOME: home, OFFSETCTL_CONFIG: join(home, 'config.yaml'), OFFSETCTL_STATE_DIR: join(home, 'state') };
}

test('audit: text and JSON in one order, oldest first; --reverse newest first in both; --limit keeps the newest', async () => {
  const env = isolated();
  const store = openSqliteStore(env.OFFSETCTL_STATE_DIR!);
  for (const [i, connector] of ['first', 'second', 'third'].entries()) {
    await store.recordAudit({ actor: { user: 'ops@laptop', via: 'cli' }, action: 'rewind', outcome: 'succeeded', connector }, new Date(Date.UTC(2026, 11, 4, 6, i)));
  }
  await store.close();
  const order = (text: string): string[] => [...text.matchAll(/\b(first|second|third)\b/g)].map((m) => m[1]!);
  const text = await runInProcess(['audit'], { env });
  assert.equal(text.status, 0, text.stderr);
  assert.deepEqual(order(text.stdout), ['first', 'second', 'third']);
  const connectors = (jsonLines: string): string[] => jsonLines.trim().split('\n').map((l) => (JSON.parse(l) as { connector: string }).connector);
  assert.deepEqual(connectors((await runInProcess(['audit', '-o', 'json'], { env })).stdout), ['first', 'second', 'third']);
  assert.deepEqual(order((await runInProcess(['audit', '--reverse'], { env })).stdout), ['third', 'second', 'first']);
  assert.deepEqual(connectors((await runInProcess(['audit', '--reverse', '-o', 'json'], { env })).stdout), ['third', 'second', 'first']);
  assert.deepEqual(order((await runInProcess(['audit', '--limit', '2'], { env })).stdout), ['second', 'third'], 'the two newest, oldest first');
});

test('snapshots: a BY column, as runs has, naming who took each (the actor of its run) (issue 30, point 22)', async () => {
  const env = isolated();
  const store = openSqliteStore(env.OFFSETCTL_STATE_DIR!);
  const run = await store.beginRun({ clusterUrl: 'http://127.0.0.1:8083', connector: 'orders', operation: 'rewind', workflowFile: 'w', workflowId: 'w', inputs: {} });
  await store.saveSnapshot({ runId: run.id, clusterUrl: 'http://127.0.0.1:8083', connector: 'orders', connectorType: 'source', stateBefore: 'RUNNING', offsets: [] });
  await store.saveSnapshot({ clusterUrl: 'http://127.0.0.1:8083', connector: 'loose', connectorType: 'source', stateBefore: 'RUNNING', offsets: [] });
  await store.finishRun(run.id, { status: 'succeeded' });
  await store.close();
  const by = `${run.actor.user}@${run.actor.host}`;
  const text = await runInProcess(['snapshots'], { env });
  assert.equal(text.status, 0, text.stderr);
  assert.match(text.stdout, /^ID\s+CONNECTOR\s+TYPE\s+STATE BEFORE\s+PARTITIONS\s+TAKEN AT\s+BY\s+RUN\s+CLUSTER$/m);
  assert.match(text.stdout, new RegExp(`\\borders\\b.*\\s${by.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s+${run.id}\\s`));
  assert.match(text.stdout, /\bloose\b.*Z\s+-\s+http:/, 'a snapshot of no run: -');
  const json = JSON.parse((await runInProcess(['snapshots', '-o', 'json'], { env })).stdout) as Array<{ connector: string; by?: { user: string } }>;
  assert.equal(json.find((s) => s.connector === 'orders')?.by?.user, run.actor.user);
});
