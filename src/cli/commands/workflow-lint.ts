// `offsetctl workflow lint <file...>`: validate's checks (structure, references, operations) as
// findings, then the generic rules and Kafka Connect's. Exit 1 when a finding is an error, 2 when
// the document cannot be read at all.
import { readFile, writeFile } from 'node:fs/promises';
import { lintDocument, GENERIC_RULES, type LintFinding, jsonPathComparisonFixes } from '../../arazzo/lint/index.js';
import type { Diagnostic } from '../../arazzo/index.js';
import { CONNECT_RULES } from '../../connect-lint/rules.js';
import { manyFilesFailed, openDocument, reportFileError } from './workflow-actions.js';
import { currentIO, fromCwd } from '../io.js';
import { loadYaml } from '../../arazzo/yaml.js';
import { applyEdits, criterionFixEdits } from './workflow-fix.js';

const out = (text: string): void => void currentIO().stdout.write(text);

/**
 * `--fix`: rewrites what needs no person (jsonpath comparisons → simple conditions) in the file,
 * in place, keeping its formatting; says each change on stderr. The lint then reads the result.
 */
async function fixFile(file: string): Promise<number> {
  const text = await readFile(fromCwd(file), 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw Object.assign(new Error(`cannot read ${file}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`), { code: 'E_DOCUMENT_READ' });
  });
  const doc = loadYaml().parseDocument(text, { keepSourceTokens: true });
  if (doc.errors.length > 0) return 0; // the lint below reports the parse error with its position
  const fixes = jsonPathComparisonFixes(doc.toJS());
  if (fixes.length === 0) return 0;
  await writeFile(fromCwd(file), applyEdits(text, criterionFixEdits(doc, text, fixes)));
  for (const f of fixes) currentIO().stderr.write(`fixed   ${f.pointer}  ${f.message}\n`);
  return fixes.length;
}

function fromDiagnostic(d: Diagnostic): LintFinding {
  const f: LintFinding = { rule: `validate/${d.code}`, severity: d.severity, message: d.message, pointer: d.pointer ?? '', file: d.file ?? '' };
  if (d.line !== undefined) f.line = d.line;
  if (d.column !== undefined) f.column = d.column;
  return f;
}

type LintOptions = { format?: string; fix?: boolean; source?: string[]; server?: string[]; allowRemote?: boolean };

export async function lintCommand(file: string, opts: LintOptions): Promise<void> {
  const format = lintFormat(opts);
  const report = await lintFile(file, opts);
  if (format === 'json') out(`${JSON.stringify(report, null, 2)}\n`);
  else out(lintText(report));
  if (report.counts.error > 0) currentIO().exitCode = 1;
}

/**
 * `workflow lint a.yaml b.yaml …` (a shell glob): one report per file, each linted whatever the
 * ones before said: text is each file's findings and a summary line naming the file, JSON an array
 * of the one-file reports. Exit 1 when any file has an error finding, 2 when one cannot be read.
 */
export async function lintFiles(files: string[], opts: LintOptions): Promise<void> {
  const format = lintFormat(opts);
  const reports: LintReport[] = [];
  const failed: Array<{ file: string; error: unknown }> = [];
  for (const file of files) {
    try {
      const report = await lintFile(file, opts);
      reports.push(report);
      if (format === 'text') out(lintText(report, true));
    } catch (error) {
      failed.push({ file, error });
      if (format === 'text') await reportFileError(file, error);
    }
  }
  if (format === 'json') out(`${JSON.stringify(reports, null, 2)}\n`);
  if (failed.length > 0) throw manyFilesFailed(failed, files.length, 'linted');
  if (reports.some((r) => r.counts.error > 0)) currentIO().exitCode = 1;
}

interface LintReport {
  file: string;
  findings: LintFinding[];
  counts: { error: number; warning: number; info: number };
}

function lintFormat(opts: LintOptions): 'text' | 'json' {
  const format = String(opts.format ?? 'text');
  if (format !== 'text' && format !== 'json') throw Object.assign(new Error(`--format ${format}: expected text or json`), { code: 'E_USAGE' });
  return format;
}

function lintText(report: LintReport, named = false): string {
  const { findings, counts } = report;
  const lines = findings.map((f) => `${f.file}${f.line !== undefined ? `:${f.line}:${f.column ?? 1}` : ''}  ${f.severity.padEnd(7)} ${f.rule}  ${f.message}\n`);
  const summary = findings.length === 0 ? 'no findings' : `${counts.error} error(s), ${counts.warning} warning(s), ${counts.info} info`;
  return `${lines.join('')}${named ? `${report.file}: ` : ''}${summary}\n`;
}

async function lintFile(file: string, opts: LintOptions): Promise<LintReport> {
  if (opts.fix) await fixFile(file);
  let findings: LintFinding[];
  try {
    // A lint needs no real server: operations are only identified, never called.
    const { doc, registry, warnings } = await openDocument(file, { ...opts, server: [...(opts.server ?? []), 'http://lint.invalid'] });
    findings = [...warnings.map(fromDiagnostic), ...lintDocument(doc, registry, [...GENERIC_RULES, ...CONNECT_RULES])];
  } catch (err) {
    const e = err as { code?: string; diagnostics?: Diagnostic[] };
    if (e.code !== 'E_DOCUMENT_INVALID' || !e.diagnostics) throw err;
    findings = e.diagnostics.map(fromDiagnostic);
  }
  findings.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || a.rule.localeCompare(b.rule));
  const counts = { error: 0, warning: 0, info: 0 };
  for (const f of findings) counts[f.severity] += 1;
  return { file, findings, counts };
}
