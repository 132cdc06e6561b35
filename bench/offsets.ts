// Figure 4: large offset sets. 1k, 10k and 100k source partitions, each size in fresh child
// processes (peak RSS per size, a cold start like a real CLI run), timed from the JSON text to
// the rendered diff. The reference is JSON.parse alone: the floor any implementation pays.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { repoRoot, type BenchOptions, type FigureResult, type FigureRow } from './figure.js';
import { readProfileDir, topFunctions } from './profile.js';
import { timeSpawn } from './process.js';
import { median, ratio, round } from './stats.js';

const SIZES = [1_000, 10_000, 100_000];
const TIME_TARGET_MS = 1000;
const RSS_TARGET_MB = 300;
/** ms-per-1k at 100k over ms-per-1k at 10k: above this the growth is not linear. */
const LINEARITY_LIMIT = 1.5;

interface ChildReport {
  size: number;
  bytes: number;
  parseMs: number;
  validateMs: number;
  diffMs: number;
  renderMs: number;
  totalMs: number;
  maxRssMb: number;
  rssBeforeMb: number;
}

export async function measureLargeOffsets(options: BenchOptions): Promise<FigureResult> {
  const repeats = options.quick ? 1 : 5;
  const dir = mkdtempSync(join(tmpdir(), 'offsetctl-bench-offsets-'));
  try {
    const files = new Map(SIZES.map((size) => [size, writeOffsetFiles(dir, size)]));
    const reports = new Map<number, ChildReport[]>(SIZES.map((s) => [s, []]));
    // Sizes interleaved per repeat, like every other figure.
    for (let r = 0; r < repeats; r++) {
      for (const size of SIZES) reports.get(size)!.push(await runChild(files.get(size)!, size));
    }
    const result = summarizeSizes(reports);
    const headline = result.rows.find((row) => row.id === '4.offsets-100k');
    if (headline?.verdict === 'miss' || options.profile) {
      // Where the 100k run spends its time, by function: the explanation a miss needs.
      const profileDir = join(dir, 'profile');
      await runChild(files.get(100_000)!, 100_000, ['--cpu-prof', `--cpu-prof-dir=${profileDir}`]);
      const top = topFunctions(readProfileDir(profileDir), 15);
      result.raw['profile100k'] = top;
      if (headline)
        headline.note += `; top self time: ${top
          .slice(0, 3)
          .map((t) => `${t.name} ${round(t.share * 100, 0)}%`)
          .join(', ')}`;
    }
    return result;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A FileStreamSource-like connector, one partition per file; the target rewinds all to 0. */
function writeOffsetFiles(dir: string, size: number): [string, string] {
  const entry = (i: number, position: number): string => `{"partition":{"filename":"/data/f-${i}.txt"},"offset":{"position":${position}}}`;
  const current: string[] = [];
  const target: string[] = [];
  for (let i = 0; i < size; i++) {
    current.push(entry(i, 100_000 + i * 37));
    target.push(entry(i, 0));
  }
  const files: [string, string] = [join(dir, `current-${size}.json`), join(dir, `target-${size}.json`)];
  writeFileSync(files[0], `{"offsets":[${current.join(',')}]}`);
  writeFileSync(files[1], `{"offsets":[${target.join(',')}]}`);
  return files;
}

async function runChild(files: [string, string], size: number, nodeFlags: string[] = []): Promise<ChildReport> {
  const child = resolve(repoRoot, 'dist', 'bench', 'offsets-child.js');
  const run = await timeSpawn(process.execPath, [...nodeFlags, child, ...files], { timeoutMs: 60_000 });
  if (run.status !== 0)
    throw new Error(`offsets child for ${size} failed (exit ${run.status ?? run.signal}): ${run.stderr.trim().split('\n').slice(0, 3).join(' | ')}`);
  const report = JSON.parse(run.stdout) as ChildReport;
  if (report.size !== size) throw new Error(`offsets child diffed ${report.size} partitions instead of ${size}`);
  return report;
}

function summarizeSizes(reports: Map<number, ChildReport[]>): FigureResult {
  const rows: FigureRow[] = [];
  const perK = new Map<number, number>();
  const raw: Record<string, unknown> = { repeats: reports.get(SIZES[0]!)?.length ?? 0, sizes: SIZES };
  for (const size of SIZES) {
    const list = reports.get(size)!;
    const total = median(list.map((x) => x.totalMs));
    const parse = median(list.map((x) => x.parseMs));
    const peak = Math.max(...list.map((x) => x.maxRssMb));
    const msPer1k = total / (size / 1000);
    perK.set(size, msPer1k);
    const phases = ['parse', 'validate', 'diff', 'render']
      .map((p) => `${p} ${round(median(list.map((x) => x[`${p}Ms` as keyof ChildReport] as number)), 1)}`)
      .join(' / ');
    const isHeadline = size === SIZES[SIZES.length - 1];
    rows.push({
      id: `4.offsets-${size / 1000}k`,
      figure: `offsets: ${size.toLocaleString('en-US')} source partitions`,
      measured: total,
      reference: parse,
      unit: 'ms',
      referenceLabel: 'JSON.parse alone',
      ratio: ratio(total, parse),
      target: isHeadline ? `< ${TIME_TARGET_MS} ms, < ${RSS_TARGET_MB} MB` : 'info (curve)',
      verdict: isHeadline ? (total < TIME_TARGET_MS && peak < RSS_TARGET_MB ? 'pass' : 'miss') : 'info',
      note: `${round(msPer1k, 2)} ms per 1k; peak RSS ${round(peak, 0)} MB; ms ${phases}`,
    });
    raw[String(size)] = {
      samples: list.map((x) => ({
        ...x,
        parseMs: round(x.parseMs),
        validateMs: round(x.validateMs),
        diffMs: round(x.diffMs),
        renderMs: round(x.renderMs),
        totalMs: round(x.totalMs),
        maxRssMb: round(x.maxRssMb, 1),
        rssBeforeMb: round(x.rssBeforeMb, 1),
      })),
      medianTotalMs: round(total),
      msPer1k: round(msPer1k, 3),
      peakRssMb: round(peak, 1),
    };
  }
  const growth = ratio(perK.get(100_000) ?? Number.NaN, perK.get(10_000) ?? Number.NaN);
  rows.push({
    id: '4.offsets-linearity',
    figure: 'offsets: ms per 1k, 100k vs 10k',
    measured: perK.get(100_000) ?? null,
    reference: perK.get(10_000) ?? null,
    unit: 'ms/1k',
    referenceLabel: 'ms per 1k at 10k',
    ratio: growth,
    target: `≤ ${LINEARITY_LIMIT} (linear)`,
    verdict: growth <= LINEARITY_LIMIT ? 'pass' : 'miss',
    note: `curve ms/1k: ${SIZES.map((s) => `${s / 1000}k ${round(perK.get(s) ?? 0, 2)}`).join(', ')}`,
  });
  return { rows, raw };
}
