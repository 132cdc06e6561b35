// The store's work per operation on the SQLite driver the running Node uses (src/store/sqlite/driver.ts):
// one run of a rewind-sized journal — beginRun, 14 steps with events, a snapshot, finishRun —
// repeated, plus a 10,000-partition snapshot. Run it under each Node to compare drivers:
//   node dist/bench/sqlite-driver.js ; <node24> dist/bench/sqlite-driver.js
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sqliteDriver } from '../src/store/sqlite/index.js';
import { openStore } from '../src/store/index.js';
import { median } from './stats.js';

const dir = mkdtempSync(join(tmpdir(), 'offsetctl-sqlite-bench-'));
const store = openStore(dir);
const runs: number[] = [];
const offsets = Array.from({ length: 10 }, (_v, i) => ({ partition: { kafka_topic: 't', kafka_partition: i }, offset: { kafka_offset: i * 100 } }));
for (let r = 0; r < 60; r++) {
  const t = performance.now();
  const run = await store.beginRun({
    clusterUrl: 'http://127.0.0.1:9',
    connector: `c${r}`,
    operation: 'rewind',
    workflowFile: 'f',
    workflowId: 'w',
    inputs: { offsets },
  });
  for (let s = 0; s < 14; s++) {
    await store.recordEvent(run.id, {
      at: new Date().toISOString(),
      type: 'request.sent',
      stepId: `s${s}`,
      detail: { method: 'GET', url: 'http://x/connectors/c/status' },
    });
    await store.recordStep(run.id, { workflowId: 'w', stepId: `s${s}`, status: 'passed', outputs: { state: 'RUNNING' }, finishedAt: new Date().toISOString() });
  }
  await store.saveSnapshot({ runId: run.id, clusterUrl: 'http://127.0.0.1:9', connector: `c${r}`, connectorType: 'sink', stateBefore: 'RUNNING', offsets });
  await store.finishRun(run.id, { status: 'succeeded' });
  runs.push(performance.now() - t);
}
const big = Array.from({ length: 10_000 }, (_v, i) => ({ partition: { kafka_topic: 't', kafka_partition: i }, offset: { kafka_offset: i } }));
const t = performance.now();
const snap = await store.saveSnapshot({ clusterUrl: 'http://127.0.0.1:9', connector: 'big', connectorType: 'sink', stateBefore: 'RUNNING', offsets: big });
const saveBig = performance.now() - t;
const t2 = performance.now();
await store.getSnapshot(snap.id);
const readBig = performance.now() - t2;
await store.close();
rmSync(dir, { recursive: true, force: true });
process.stdout.write(
  `${JSON.stringify({ node: process.versions.node, driver: sqliteDriver(), journalRunMedianMs: Math.round(median(runs) * 100) / 100, snapshot10kSaveMs: Math.round(saveBig), snapshot10kReadMs: Math.round(readBig) })}\n`,
);
