// `offsetctl workflow lint <file>`: validate's checks (structure, references, operations) as
// findings, then the generic rules and Kafka Connect's. Exit 1 when a finding is an error, 2 when
// the document cannot be read at all.
import { readFile, writeFile } from 'node:fs/promises';
import { lintDocument, GENERIC_RULES, type LintFinding } from '../../arazzo/lint/index.js';
import type { Diagnostic } from '../../arazzo/index.js';
import { CONNECT_RULES } from '../../connect-lint/rules.js';
import { openDocument } from './workflow-actions.js';

const out = (text: string): void => void process.stdout.write(text);

/**
 * `--fix`: rewrites what needs no person (jsonpath comparisons → simple conditions) in the file,
 * in place, keeping its formatting; says each change on stderr. The lint then reads the result.
 */
async function fixFile(file: string): Promise<number> {
  const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw Object.assign(new Error(`cannot read ${file}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`), { code: 'E_DOCUMENT_READ' });
  });
  const { loadYaml } = await import('../../arazzo/yaml.js');
  const { jsonPathComparisonFixes } = await import('../../arazzo/lint/index.js');
  const { applyEdits, criterionFixEdits } = await import('./workflow-fix.js');
  const doc = loadYaml().parseDocument(text, { keepSourceTokens: true });
  if (doc.errors.length > 0) return 0; // the lint below reports the parse error with its position
  const fixes = jsonPathComparisonFixes(doc.toJS());
  if (fixes.length === 0) return 0;
  await writeFile(file, applyEdits(text, criterionFixEdits(doc, text, fixes)));
  for (const f of fixes) process.stderr.write(`fixed   ${f.pointer}  ${f.message}\n`);
  return fixes.length;
}

function fromDiagnostic(d: Diagnostic): LintFinding {
  const f: LintFinding = { rule: `validate/${d.code}`, severity: d.severity, message: d.message, pointer: d.pointer ?? '', file: d.file ?? '' };
  if (d.line !== undefined) f.line = d.line;
  if (d.column !== undefined) f.column = d.column;
  return f;
}

export async function lintCommand(file: string, opts: { format?: string; fix?: boolean; source?: string[]; server?: string[]; allowRemote?: boolean }): Promise<void> {
  const format = String(opts.format ?? 'text');
  if (format !== 'text' && format !== 'json') throw Object.assign(new Error(`--format ${format}: expected text or json`), { code: 'E_USAGE' });
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
  if (format === 'json') {
    out(`${JSON.stringify({ file, findings, counts }, null, 2)}\n`);
  } else {
    for (const f of findings) out(`${f.file}${f.line !== undefined ? `:${f.line}:${f.column ?? 1}` : ''}  ${f.severity.padEnd(7)} ${f.rule}  ${f.message}\n`);
    out(`${findings.length === 0 ? 'no findings' : `${counts.error} error(s), ${counts.warning} warning(s), ${counts.info} info`}\n`);
  }
  if (counts.error > 0) process.exitCode = 1;
}
