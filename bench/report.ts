// The two outputs of a bench run: the table on stdout and bench/results.json.
import { cpus, loadavg } from 'node:os';
import { writeFileSync } from 'node:fs';
import type { FigureRow } from './figure.js';
import { round } from './stats.js';

const HEADERS = ['#', 'figure', 'measured', 'reference', 'ratio', 'target', 'verdict'];

export function renderTable(rows: readonly FigureRow[]): string {
  const cells = rows.map((r, i) => [
    String(i + 1),
    r.figure,
    formatValue(r.measured, r.unit),
    r.reference === null ? '—' : `${formatValue(r.reference, r.unit)} (${r.referenceLabel})`,
    r.ratio === null || Number.isNaN(r.ratio) ? '—' : r.ratio.toFixed(r.ratio >= 10 ? 1 : 3),
    r.target,
    r.verdict.toUpperCase(),
  ]);
  const widths = HEADERS.map((h, c) => Math.max(h.length, ...cells.map((row) => (row[c] ?? '').length)));
  const line = (row: string[]): string =>
    row
      .map((cell, c) => cell.padEnd(widths[c] ?? 0))
      .join('  ')
      .trimEnd();
  const out = [line(HEADERS), widths.map((w) => '-'.repeat(w)).join('  ')];
  for (const row of cells) out.push(line(row));
  out.push('');
  rows.forEach((r, i) => {
    if (r.note) out.push(`${i + 1}. ${r.note}`);
  });
  return out.join('\n');
}

export function formatValue(value: number | null, unit: string): string {
  if (value === null) return '—';
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  return `${value.toFixed(digits)}${unit ? ` ${unit}` : ''}`;
}

export interface ResultsFile {
  date: string;
  node: string;
  platform: string;
  cpu: string;
  cpuCount: number;
  loadAverageAtStart: number[];
  options: Record<string, unknown>;
  durationS: number;
  rows: FigureRow[];
  raw: Record<string, unknown>;
}

export function machineInfo(): Pick<ResultsFile, 'node' | 'platform' | 'cpu' | 'cpuCount' | 'loadAverageAtStart'> {
  const list = cpus();
  return {
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    cpu: list[0]?.model ?? 'unknown',
    cpuCount: list.length,
    loadAverageAtStart: loadavg().map((x) => round(x)),
  };
}

export function writeResults(file: string, results: ResultsFile): void {
  const rows = results.rows.map((r) => ({
    ...r,
    measured: r.measured === null ? null : round(r.measured, 3),
    reference: r.reference === null ? null : round(r.reference, 3),
    ratio: r.ratio === null || Number.isNaN(r.ratio) ? null : round(r.ratio, 4),
  }));
  writeFileSync(file, `${JSON.stringify({ ...results, rows }, null, 2)}\n`);
}
