// `npm run bench`: runs the figures one after the other (never in parallel: they would
// measure each other), prints the table and writes bench/results.json.
//   --only 1,3      run some figures (numbers as in BENCHMARKS.md)
//   --quick         fewer rounds: checks the harness, not for publishing
//   --profile       profile every figure that supports it, even when it meets its target
//   --with-sandbox  start the sandbox for figure 5 when it is not running (and stop it after)
//   --out <file>    results file (default bench/results.json)
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { errorRow, repoRoot, skippedRow, type BenchOptions, type FigureResult } from './figure.js';
import { machineInfo, renderTable, writeResults } from './report.js';

interface FigureSpec {
  number: number;
  id: string;
  label: string;
  target: string;
  load: () => Promise<(options: BenchOptions) => Promise<FigureResult>>;
}

const FIGURES: FigureSpec[] = [
  {
    number: 1,
    id: '1.engine-overhead',
    label: 'engine overhead vs raw HTTP',
    target: '≤ 1.15',
    load: async () => (await import('./engine-overhead.js')).measureEngineOverhead,
  },
  {
    number: 2,
    id: '2.respect',
    label: 'against Redocly respect',
    target: '≥ 3× faster',
    load: async () => (await import('./respect.js')).measureAgainstRespect,
  },
  { number: 3, id: '3.startup', label: 'start-up', target: '≤ +80 / +120 ms', load: async () => (await import('./startup.js')).measureStartup },
  { number: 4, id: '4.offsets', label: 'large offset sets', target: '< 1 s, < 300 MB', load: async () => (await import('./offsets.js')).measureLargeOffsets },
  { number: 5, id: '5.rewind', label: 'rewind on the sandbox', target: 'own share < 10%', load: async () => (await import('./rewind.js')).measureRewind },
  { number: 6, id: '6.ui', label: 'web console pages', target: '< 1 s (500 connectors)', load: async () => (await import('./ui.js')).measureUi },
  {
    number: 7,
    id: '7.dependson',
    label: 'Arazzo 1.1: 200 dependsOn steps, --concurrency 8 vs sequential',
    target: 'info',
    load: async () => (await import('./arazzo11.js')).measureDependsOn,
  },
  {
    number: 8,
    id: '8.send-receive',
    label: 'Arazzo 1.1: send → receive round trip on the sandbox',
    target: 'info',
    load: async () => (await import('./arazzo11.js')).measureRoundTrip,
  },
  {
    number: 9,
    id: '9.fleet',
    label: 'batch rewind of 20 connectors',
    target: '≥ 3× faster than 20 single runs',
    load: async () => (await import('./fleet.js')).measureFleet,
  },

  {
    number: 11,
    id: '11.team-store',
    label: 'team store (PostgreSQL) vs SQLite: journal, 100,000-partition snapshot, runs over 10,000 runs',
    target: 'info',
    load: async () => (await import('./team-store.js')).measureTeamStore,
  },
  {
    number: 10,
    id: '10.positions',
    label: 'rewind --to-time targets for a sink on 100 topics × 12 partitions vs the bare Kafka requests',
    target: 'info',
    load: async () => (await import('./positions.js')).measurePositions,
  },
  {
    number: 13,
    id: '13.console-load',
    label: 'console under load: 50 signed-in users, connectors page and preview, 1 and 2 replicas',
    target: 'info',
    load: async () => (await import('./console-load.js')).measureConsoleLoad,
  },
  {
    number: 12,
    id: '12.dry-run-output',
    label: 'rewind --dry-run output for 10k, 100k, 1M partitions, text vs JSON',
    target: 'within 2×, linear',
    load: async () => (await import('./dry-run-output.js')).measureDryRunOutput,
  },
];

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      only: { type: 'string' },
      quick: { type: 'boolean', default: false },
      profile: { type: 'boolean', default: false },
      'with-sandbox': { type: 'boolean', default: false },
      out: { type: 'string', default: resolve(repoRoot, 'bench', 'results.json') },
    },
  });
  const only = values.only === undefined ? undefined : new Set(values.only.split(',').map((x) => Number(x.trim())));
  const options: BenchOptions = {
    quick: values.quick === true,
    profile: values.profile === true,
    withSandbox: values['with-sandbox'] === true,
    log: (line) => process.stderr.write(`${line}\n`),
  };
  const info = machineInfo();
  const started = performance.now();
  const rows: FigureResult['rows'] = [];
  const raw: Record<string, unknown> = {};
  for (const figure of FIGURES) {
    if (only && !only.has(figure.number)) continue;
    options.log(`[${figure.number}/${FIGURES.length}] ${figure.label} …`);
    const t = performance.now();
    let measure: (options: BenchOptions) => Promise<FigureResult>;
    try {
      measure = await figure.load();
    } catch (err) {
      // A part of the project this figure measures is not built (yet): say so, never guess a number.
      rows.push(skippedRow(figure.id, figure.label, figure.target, `cannot load: ${(err as Error).message.split('\n')[0]}`));
      continue;
    }
    try {
      const result = await measure(options);
      rows.push(...result.rows);
      raw[figure.id] = result.raw;
    } catch (err) {
      rows.push(errorRow(figure.id, figure.label, figure.target, err));
      raw[figure.id] = { error: (err as Error).stack ?? String(err) };
    }
    options.log(`[${figure.number}/${FIGURES.length}] done in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  }
  const durationS = (performance.now() - started) / 1000;
  process.stdout.write(
    `\n${renderTable(rows)}\n\nTotal ${durationS.toFixed(0)} s on ${info.cpuCount} × ${info.cpu}, node ${info.node}, load average at start ${info.loadAverageAtStart.join(' ')}\n`,
  );
  writeResults(values.out as string, {
    date: new Date().toISOString(),
    ...info,
    options: { only: values.only ?? 'all', quick: options.quick, profile: options.profile, withSandbox: options.withSandbox },
    durationS: Math.round(durationS),
    rows,
    raw,
  });
  process.stdout.write(`results written to ${values.out}\n`);
  // Misses are findings, not failures of the bench; an error row is a broken measurement.
  if (rows.some((r) => r.verdict === 'error')) process.exitCode = 1;
}

await main();
