// Figure 9: many connectors. A batch rewind of 20 FileStreamSource connectors (one process,
// per-connector workflows run concurrently) against the same 20 rewinds run one after the
// other as single `offsetctl rewind` processes, on the sandbox, measured side by side in the
// same run. Each rewind writes a partition the connector does not read (so every round really
// changes something and nothing else moves). Reported at --concurrency 20 (one wave) and at
// the default 4.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, skippedRow, type BenchOptions, type FigureResult, type FigureRow } from './figure.js';
import { createFileSource, deleteConnector, getStatus, isRunning, waitFor } from './connect-watch.js';
import { timeSpawn, type TimedRun } from './process.js';
import { round } from './stats.js';

const COUNT = 20;
const TARGET_RATIO = 3;

export async function measureFleet(options: BenchOptions): Promise<FigureResult> {
  const id = '9.fleet';
  const label = `batch rewind of ${COUNT} connectors vs ${COUNT} single runs`;
  const target = `≥ ${TARGET_RATIO}× faster`;
  const worker = await runningWorker();
  if (worker === undefined) return { rows: [skippedRow(id, label, target, 'the sandbox is not running (`offsetctl sandbox up`)')], raw: {} };

  const dir = mkdtempSync(join(tmpdir(), 'offsetctl-bench-fleet-'));
  const prefix = `bench-fleet-${process.pid}-${Date.now().toString(36)}`;
  const names = Array.from({ length: COUNT }, (_, i) => `${prefix}-${String(i).padStart(2, '0')}`);
  const stateDir = join(dir, 'state');
  let position = 0;
  /** A fresh per-connector offsets document: each round writes a new position. */
  const offsetsFor = (name: string): { offsets: unknown[] } => ({
    offsets: [{ partition: { filename: join(dir, `${name}-elsewhere.txt`) }, offset: { position } }],
  });
  try {
    for (let i = 0; i < COUNT; i += 5) {
      await Promise.all(
        names.slice(i, i + 5).map(async (name) => {
          const file = join(dir, `${name}.txt`);
          writeFileSync(file, 'a\nb\nc\n');
          await createFileSource(worker, name, file, name);
        }),
      );
    }
    options.log(`  created ${COUNT} FileStreamSource connectors`);

    const batch = async (concurrency: number): Promise<TimedRun> => {
      position++;
      const file = join(dir, `batch-${position}.json`);
      writeFileSync(file, JSON.stringify({ connectors: Object.fromEntries(names.map((n) => [n, offsetsFor(n)])) }));
      const r = await timeSpawn(
        process.execPath,
        [
          cli,
          'rewind',
          '--selector',
          `^${prefix}-`,
          '--offsets',
          file,
          '--concurrency',
          String(concurrency),
          '--yes',
          '--output',
          'json',
          '--url',
          worker,
          '--state-dir',
          stateDir,
        ],
        { timeoutMs: 900_000 },
      );
      if (r.status !== 0) throw new Error(`batch rewind exited ${r.status}: ${r.stderr.trim().split('\n').pop() ?? ''}`);
      await allRunning(worker, names);
      return r;
    };
    const sequential = async (): Promise<number> => {
      position++;
      let total = 0;
      for (const name of names) {
        const file = join(dir, `${name}-${position}.json`);
        writeFileSync(file, JSON.stringify(offsetsFor(name)));
        const r = await timeSpawn(
          process.execPath,
          [cli, 'rewind', name, '--offsets', file, '--yes', '--output', 'json', '--url', worker, '--state-dir', stateDir],
          { timeoutMs: 300_000 },
        );
        if (r.status !== 0) throw new Error(`rewind ${name} exited ${r.status}: ${r.stderr.trim().split('\n').pop() ?? ''}`);
        total += r.ms;
      }
      await allRunning(worker, names);
      return total;
    };

    const batchAll = await batch(COUNT);
    options.log(`  batch rewind, --concurrency ${COUNT}: ${round(batchAll.ms / 1000, 1)} s`);
    const seqMs = await sequential();
    options.log(`  ${COUNT} single rewinds one after the other: ${round(seqMs / 1000, 1)} s`);
    const batchDefault = await batch(4);
    options.log(`  batch rewind, --concurrency 4 (default): ${round(batchDefault.ms / 1000, 1)} s`);

    const row = (suffix: string, concurrency: number, ms: number): FigureRow => ({
      id: `${id}-c${concurrency}`,
      figure: `batch rewind of ${COUNT}, --concurrency ${concurrency}${suffix}`,
      measured: round(ms, 0),
      reference: round(seqMs, 0),
      unit: 'ms',
      referenceLabel: `${COUNT} single rewinds in sequence`,
      ratio: round(seqMs / ms, 2),
      target,
      verdict: seqMs / ms >= TARGET_RATIO ? 'pass' : 'miss',
      note: `${round(seqMs / ms, 1)}× faster (wall time, whole processes, measured in the same run, ${options.quick ? 'quick: ' : ''}1 round each)`,
    });
    return {
      rows: [row('', COUNT, batchAll.ms), row(' (default)', 4, batchDefault.ms)],
      raw: {
        worker,
        connectors: COUNT,
        batchConcurrency20Ms: round(batchAll.ms, 0),
        batchConcurrency4Ms: round(batchDefault.ms, 0),
        sequentialMs: round(seqMs, 0),
      },
    };
  } finally {
    for (const name of names) await deleteConnector(worker, name);
    rmSync(dir, { recursive: true, force: true });
  }
}

async function allRunning(worker: string, names: readonly string[]): Promise<void> {
  for (const name of names) {
    await waitFor(
      async () => {
        const s = await getStatus(worker, name);
        return s !== undefined && isRunning(s);
      },
      60_000,
      `connector ${name} RUNNING`,
    );
  }
}

async function runningWorker(): Promise<string | undefined> {
  const s = await timeSpawn(process.execPath, [cli, 'sandbox', 'status', '--output', 'json'], { timeoutMs: 30_000 });
  try {
    const status = JSON.parse(s.stdout) as { running?: boolean; connect?: string[] };
    return status.running === true ? status.connect?.[0] : undefined;
  } catch {
    return undefined;
  }
}
