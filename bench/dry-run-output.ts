// Figure 12: what `rewind … --dry-run` prints, text against JSON, for a FileStreamSource of
// 10,000, 100,000 and 1,000,000 partitions (issue 20, point 8: the text took 5.7–9.7 s for 20k,
// 33 s for 40k and 410 s for 100k, JSON 1.3 s for 40k). Each size and mode in a fresh child
// (bench/dry-run-output-child.ts), sizes and modes interleaved per repeat. Targets: text and JSON
// within 2× of each other per partition at every size, and each linear (ms per 1k partitions at
// 1M within 1.5× of that at 10k).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawn } from 'node:child_process';
import { repoRoot, type BenchOptions, type FigureResult, type FigureRow } from './figure.js';
import { median, ratio, round } from './stats.js';

const SIZES = [10_000, 100_000, 1_000_000];
const MODES = ['text', 'json'] as const;
const SIDE_BY_SIDE_LIMIT = 2;
const LINEARITY_LIMIT = 1.5;

interface ChildReport {
  size: number;
  mode: (typeof MODES)[number];
  warnings: number;
  outputMs: number;
  maxRssMb: number;
}

export async function measureDryRunOutput(options: BenchOptions): Promise<FigureResult> {
  const repeats = options.quick ? 1 : 3;
  const dir = mkdtempSync(join(tmpdir(), 'offsetctl-bench-dry-run-'));
  const reports = new Map<string, ChildReport[]>();
  try {
    for (let r = 0; r < repeats; r++) {
      for (const size of SIZES) {
        for (const mode of MODES) {
          const report = await runChild(dir, size, mode);
          const key = `${size}/${mode}`;
          reports.set(key, [...(reports.get(key) ?? []), report]);
          options.log(`  ${size.toLocaleString('en-US')} ${mode}: ${round(report.outputMs, 0)} ms`);
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return summarize(reports);
}

function runChild(dir: string, size: number, mode: string): Promise<ChildReport> {
  const report = join(dir, `${size}-${mode}.json`);
  const child = resolve(repoRoot, 'dist', 'bench', 'dry-run-output-child.js');
  return new Promise((resolvePromise, reject) => {
    // stdout and stderr to /dev/null, as `offsetctl rewind … --dry-run > /dev/null 2>&1`.
    const p = spawn(process.execPath, ['--max-old-space-size=4096', child, String(size), mode, report], { stdio: 'ignore' });
    const timer = setTimeout(() => p.kill('SIGKILL'), 600_000);
    p.on('error', reject);
    p.on('close', (status, signal) => {
      clearTimeout(timer);
      if (status !== 0) return reject(new Error(`dry-run output child for ${size} ${mode} failed (exit ${status ?? signal})`));
      resolvePromise(JSON.parse(readFileSync(report, 'utf8')) as ChildReport);
    });
  });
}

function summarize(reports: Map<string, ChildReport[]>): FigureResult {
  const rows: FigureRow[] = [];
  const perK = new Map<string, number>();
  const raw: Record<string, unknown> = { sizes: SIZES };
  for (const size of SIZES) {
    const text = reports.get(`${size}/text`) ?? [];
    const json = reports.get(`${size}/json`) ?? [];
    const textMs = median(text.map((x) => x.outputMs));
    const jsonMs = median(json.map((x) => x.outputMs));
    perK.set(`${size}/text`, textMs / (size / 1000));
    perK.set(`${size}/json`, jsonMs / (size / 1000));
    const r = ratio(textMs, jsonMs);
    const spread = Math.max(r, 1 / r);
    rows.push({
      id: `12.dry-run-${size / 1000}k`,
      figure: `dry-run output: ${size.toLocaleString('en-US')} partitions, text vs JSON`,
      measured: textMs,
      reference: jsonMs,
      unit: 'ms',
      referenceLabel: 'the same plan as --output json',
      ratio: r,
      target: `within ${SIDE_BY_SIDE_LIMIT}× either way`,
      verdict: spread <= SIDE_BY_SIDE_LIMIT ? 'pass' : 'miss',
      note: `text ${round(textMs / (size / 1000), 3)} ms per 1k, JSON ${round(jsonMs / (size / 1000), 3)} ms per 1k; peak RSS text ${round(Math.max(...text.map((x) => x.maxRssMb)), 0)} MB, JSON ${round(Math.max(...json.map((x) => x.maxRssMb)), 0)} MB; ${text[0]?.warnings ?? 0} warnings`,
    });
    raw[String(size)] = {
      text: text.map((x) => round(x.outputMs)),
      json: json.map((x) => round(x.outputMs)),
      textRssMb: text.map((x) => round(x.maxRssMb, 1)),
      jsonRssMb: json.map((x) => round(x.maxRssMb, 1)),
    };
  }
  const first = SIZES[0]!;
  const last = SIZES[SIZES.length - 1]!;
  for (const mode of MODES) {
    const growth = ratio(perK.get(`${last}/${mode}`) ?? Number.NaN, perK.get(`${first}/${mode}`) ?? Number.NaN);
    rows.push({
      id: `12.dry-run-linearity-${mode}`,
      figure: `dry-run output (${mode}): ms per 1k, ${last / 1000}k vs ${first / 1000}k`,
      measured: perK.get(`${last}/${mode}`) ?? null,
      reference: perK.get(`${first}/${mode}`) ?? null,
      unit: 'ms/1k',
      referenceLabel: `ms per 1k at ${first / 1000}k`,
      ratio: growth,
      target: `≤ ${LINEARITY_LIMIT} (linear)`,
      verdict: growth <= LINEARITY_LIMIT ? 'pass' : 'miss',
      note: `curve ms/1k: ${SIZES.map((s) => `${s / 1000}k ${round(perK.get(`${s}/${mode}`) ?? 0, 3)}`).join(', ')}`,
    });
  }
  return { rows, raw };
}
