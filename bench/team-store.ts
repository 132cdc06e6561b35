// Figure 11: the team store (PostgreSQL) against the SQLite file, side by side in one run on one
// machine: a rewind-sized journal (beginRun, 14 steps each with its event batch, a snapshot,
// finishRun), a 100,000-partition snapshot saved and read back, and `runs` (listRuns) over 1,250,
// 2,500, 5,000 and 10,000 stored runs (the fastest of 7 listings each), to show the cost grows linearly. The PostgreSQL server is the one
// OFFSETCTL_TEST_PG names, else a throwaway one started here (src/sandbox/postgres-server.ts).
// Alone: node dist/bench/team-store.js [--quick]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import { openSqliteStore, type Store } from '../src/store/index.js';
import { PostgresStore } from '../src/store/postgres/index.js';
import { pgSettings } from '../src/store/postgres/connection.js';
import { serverFromEnv, startPgServer, stopPgServer, type PgServer } from '../src/sandbox/postgres-server.js';
import type { BenchOptions, FigureResult, FigureRow } from './figure.js';
import { median, round } from './stats.js';

const requireCjs = createRequire(import.meta.url);
const CLUSTER = 'http://127.0.0.1:9';

async function journalRun(store: Store, i: number): Promise<number> {
  const offsets = Array.from({ length: 10 }, (_v, p) => ({ partition: { kafka_topic: 't', kafka_partition: p }, offset: { kafka_offset: p * 100 } }));
  const t = performance.now();
  const run = await store.beginRun({ clusterUrl: CLUSTER, connector: `c${i}`, operation: 'rewind', workflowFile: 'f', workflowId: 'w', inputs: { offsets } });
  for (let s = 0; s < 14; s++) {
    const at = new Date().toISOString();
    await store.recordEvents(run.id, [
      { at, type: 'step.started', stepId: `s${s}`, detail: {} },
      { at, type: 'request.sent', stepId: `s${s}`, detail: { method: 'GET', url: 'http://x/connectors/c/status' } },
      { at, type: 'response.received', stepId: `s${s}`, detail: { status: 200 } },
    ]);
    await store.recordStep(run.id, { workflowId: 'w', stepId: `s${s}`, status: 'passed', outputs: { state: 'RUNNING' }, finishedAt: at });
    if (s === 4) {
      const snap = await store.saveSnapshot({ runId: run.id, clusterUrl: CLUSTER, connector: `c${i}`, connectorType: 'sink', stateBefore: 'RUNNING', offsets });
      await store.updateRunContext(run.id, { snapshotId: snap.id });
    }
    if (s === 5) await store.updateRunContext(run.id, { offsetsMayHaveChanged: true });
  }
  await store.finishRun(run.id, { status: 'succeeded' });
  return performance.now() - t;
}

async function bigSnapshot(store: Store, partitions: number): Promise<{ saveMs: number; readMs: number }> {
  const offsets = Array.from({ length: partitions }, (_v, i) => ({
    partition: { kafka_topic: `topic-${i % 100}`, kafka_partition: i },
    offset: { kafka_offset: i * 7 },
  }));
  let t = performance.now();
  const snap = await store.saveSnapshot({ clusterUrl: CLUSTER, connector: 'big', connectorType: 'sink', stateBefore: 'RUNNING', offsets });
  const saveMs = performance.now() - t;
  t = performance.now();
  const read = await store.getSnapshot(snap.id);
  const readMs = performance.now() - t;
  if (read.offsets.length !== partitions) throw new Error('the snapshot read back is not the one saved');
  return { saveMs, readMs };
}

/** Adds finished runs until the store holds `total`, quickly (no journal): what `runs` lists. */
async function fillRuns(store: Store, from: number, total: number): Promise<void> {
  for (let i = from; i < total; i++) {
    const run = await store.beginRun({ clusterUrl: CLUSTER, connector: `fill-${i}`, operation: 'rewind', workflowFile: 'f', workflowId: 'w', inputs: {} });
    await store.finishRun(run.id, { status: 'succeeded' });
  }
}

/** The fastest of `rounds` listings: on a shared machine the minimum is the cost, the rest is other load. */
async function listMs(store: Store, limit: number, rounds: number): Promise<number> {
  const samples: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t = performance.now();
    const list = await store.listRuns({ limit });
    samples.push(performance.now() - t);
    if (list.length !== limit) throw new Error(`listRuns returned ${list.length} runs, not ${limit}`);
  }
  return Math.min(...samples);
}

async function newPgStore(server: PgServer): Promise<{ store: PostgresStore; drop: () => Promise<void> }> {
  const { Pool } = requireCjs('pg') as { Pool: new (c: Record<string, unknown>) => { query(q: string): Promise<unknown>; end(): Promise<void> } };
  const admin = new Pool({ host: server.host, port: server.port, user: server.adminUser, password: server.adminPassword, database: 'postgres', max: 1 });
  const name = `bench_${randomBytes(4).toString('hex')}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const store = new PostgresStore(
    pgSettings(`postgres://${server.adminUser}@${server.host}:${server.port}/${name}`, { passwordEnv: 'P', env: { P: server.adminPassword } }),
  );
  await store.ready();
  return {
    store,
    drop: async () => {
      await store.close();
      await admin.query(`DROP DATABASE ${name}`);
      await admin.end();
    },
  };
}

export async function measureTeamStore(options: BenchOptions): Promise<FigureResult> {
  const shared = serverFromEnv();
  const server = shared ?? (await startPgServer());
  const dir = mkdtempSync(join(tmpdir(), 'offsetctl-bench-store-'));
  const sqlite = openSqliteStore(dir);
  const pg = await newPgStore(server);
  const journalRounds = options.quick ? 5 : 30;
  const partitions = options.quick ? 10_000 : 100_000;
  const runCounts = options.quick ? [500, 1000, 2000] : [1_250, 2_500, 5_000, 10_000];
  try {
    // Interleaved, so drift of a shared machine falls on both sides alike.
    const journal = { sqlite: [] as number[], pg: [] as number[] };
    for (let i = 0; i < journalRounds; i++) {
      journal.sqlite.push(await journalRun(sqlite, i));
      journal.pg.push(await journalRun(pg.store, i));
    }
    options.log(`  journal: sqlite ${round(median(journal.sqlite))} ms, postgres ${round(median(journal.pg))} ms per run`);
    const snap = { sqlite: await bigSnapshot(sqlite, partitions), pg: await bigSnapshot(pg.store, partitions) };
    options.log(
      `  ${partitions} partitions: sqlite save ${round(snap.sqlite.saveMs)} / read ${round(snap.sqlite.readMs)} ms, postgres save ${round(snap.pg.saveMs)} / read ${round(snap.pg.readMs)} ms`,
    );
    const curve: Array<{ runs: number; sqliteMs: number; pgMs: number }> = [];
    let have = journalRounds;
    for (const total of runCounts) {
      await fillRuns(sqlite, have, total);
      await fillRuns(pg.store, have, total);
      have = total;
      curve.push({ runs: total, sqliteMs: await listMs(sqlite, total, 7), pgMs: await listMs(pg.store, total, 7) });
      options.log(`  runs over ${total}: sqlite ${round(curve.at(-1)!.sqliteMs)} ms, postgres ${round(curve.at(-1)!.pgMs)} ms`);
    }
    const perRun = (key: 'sqliteMs' | 'pgMs'): number[] => curve.map((c) => (c[key] / c.runs) * 1000);
    const row = (id: string, figure: string, measured: number, reference: number, unit: string, note?: string): FigureRow => ({
      id,
      figure,
      measured: round(measured),
      reference: round(reference),
      unit,
      referenceLabel: 'the SQLite store, same run',
      ratio: round(measured / reference),
      target: 'info',
      verdict: 'info',
      ...(note ? { note } : {}),
    });
    const rows = [
      row(
        '11.journal',
        'team store: one rewind-sized journal (PostgreSQL vs SQLite)',
        median(journal.pg),
        median(journal.sqlite),
        'ms/run',
        `${journalRounds} runs each, interleaved`,
      ),
      row('11.snapshot-save', `team store: save a ${partitions.toLocaleString('en')}-partition snapshot`, snap.pg.saveMs, snap.sqlite.saveMs, 'ms'),
      row('11.snapshot-read', `team store: read it back`, snap.pg.readMs, snap.sqlite.readMs, 'ms'),
      row(
        '11.runs',
        `team store: \`runs\` over ${runCounts.at(-1)!.toLocaleString('en')} runs`,
        curve.at(-1)!.pgMs,
        curve.at(-1)!.sqliteMs,
        'ms',
        `µs per listed run at ${runCounts.join('/')}: postgres ${perRun('pgMs')
          .map((x) => round(x, 1))
          .join('/')}, sqlite ${perRun('sqliteMs')
          .map((x) => round(x, 1))
          .join('/')} (flat = linear)`,
      ),
    ];
    return { rows, raw: { journal, snapshot: snap, partitions, curve } };
  } finally {
    await sqlite.close();
    await pg.drop();
    rmSync(dir, { recursive: true, force: true });
    if (!shared) stopPgServer(server, 'fast');
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await measureTeamStore({
    quick: process.argv.includes('--quick'),
    profile: false,
    withSandbox: false,
    log: (l) => process.stderr.write(`${l}\n`),
  });
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}
