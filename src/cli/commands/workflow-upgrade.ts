// `offsetctl workflow upgrade <file>`: an Arazzo 1.0.x document rewritten as 1.1.0 with the yaml
// library's Document API, so comments, key order and formatting stay. What 1.1 reads differently
// is pinned to the 1.0 behaviour where a rewrite can say it, and listed for a person otherwise.
import { readFile, writeFile } from 'node:fs/promises';
import type { Document, Scalar } from 'yaml';
import { isSelectorObject, parseDocumentText, validateArazzo } from '../../arazzo/document/index.js';
import { jsonPathComparisonFixes } from '../../arazzo/lint/index.js';
import { loadYaml } from '../../arazzo/yaml.js';
import { applyEdits, criterionFixEdits, scalarEdit, type Edit } from './workflow-fix.js';
import { currentIO, fromCwd } from '../io.js';

// This module is imported only by `workflow upgrade`: loading yaml with it costs nothing elsewhere.
const { isMap, isScalar, isSeq, parseDocument, visit } = loadYaml();

export interface UpgradeNote {
  /** `pinned`: rewritten so the document behaves as before; `review`: a person must decide. */
  kind: 'changed' | 'pinned' | 'review';
  pointer: string;
  message: string;
}

export interface UpgradeResult {
  text: string;
  notes: UpgradeNote[];
}

/** The upgrade itself, on text (the command reads and writes the file). */
export function upgradeText(text: string, file: string): UpgradeResult {
  const doc = parseDocument(text, { keepSourceTokens: true });
  if (doc.errors.length > 0) throw Object.assign(new Error(`${file}: not valid YAML: ${doc.errors[0]!.message}`), { code: 'E_DOCUMENT_PARSE' });
  const version = doc.get('arazzo');
  if (typeof version !== 'string' || !/^1\.0\.\d+/.test(version)) {
    throw Object.assign(new Error(`${file}: arazzo: ${String(version)} is not a 1.0.x document; only 1.0.x documents are upgraded`), { code: 'E_DOCUMENT_INVALID' });
  }
  const notes: UpgradeNote[] = [];
  // Edits are spliced into the source text at the nodes' ranges, so everything else (comments,
  // order, quoting, line breaks) stays byte for byte.
  const edits: Edit[] = [];
  const arazzoNode = doc.get('arazzo', true) as Scalar;
  edits.push(scalarEdit(text, arazzoNode, () => '1.1.0'));
  notes.push({ kind: 'changed', pointer: '/arazzo', message: `arazzo: ${version} → 1.1.0` });
  const root = doc.toJS() as Record<string, unknown>;
  // A jsonpath comparison becomes the simple condition it means (it would fail in 1.0 and 1.1 alike);
  // it is then no longer a jsonpath condition, so its {$ (if any) is not pinned.
  const fixes = jsonPathComparisonFixes(root);
  edits.push(...criterionFixEdits(doc, text, fixes));
  for (const f of fixes) notes.push({ kind: 'changed', pointer: f.pointer, message: f.message });
  const fixed = new Set(fixes.map((f) => f.pointer));
  pinEmbeddedConditions(doc, text, edits, notes, fixed);
  listChangedMeanings(root, notes, fixed);
  return { text: applyEdits(text, edits), notes };
}

/**
 * 1.1 substitutes `{$...}` inside regex/jsonpath/xpath conditions; 1.0 read them literally. They
 * are escaped as `{$$...}` (a literal `{$`), so the condition means what it meant.
 */
function pinEmbeddedConditions(doc: Document, text: string, edits: Edit[], notes: UpgradeNote[], fixed: ReadonlySet<string>): void {
  visit(doc, {
    Map(_key, node, path) {
      const type = node.get('type');
      const kind = isMap(type) ? type.get('type') : type;
      if (kind !== 'regex' && kind !== 'jsonpath' && kind !== 'xpath') return;
      const condition = node.get('condition', true);
      if (!isScalar(condition) || typeof condition.value !== 'string' || !/\{\$(?!\$)/.test(condition.value)) return;
      if (fixed.has(pointerOf([...path, node]))) return;
      const before = condition.value;
      edits.push(scalarEdit(text, condition as Scalar, (source) => source.replace(/\{\$(?!\$)/g, '{$$$$')));
      notes.push({ kind: 'pinned', pointer: pointerOf([...path, node]), message: `${String(kind)} condition ${JSON.stringify(before)}: 1.1 would substitute {$...} before evaluating it; escaped as {$$ to keep the 1.0 meaning (remove the escape if substitution is what you want)` });
    },
  });
}

/** Things 1.1 reads differently that no rewrite can decide. */
function listChangedMeanings(root: Record<string, unknown>, notes: UpgradeNote[], fixed: ReadonlySet<string>): void {
  const workflows = Array.isArray(root['workflows']) ? root['workflows'] : [];
  workflows.forEach((w, wi) => {
    const steps = Array.isArray((w as Record<string, unknown>)?.['steps']) ? ((w as Record<string, unknown>)['steps'] as Array<Record<string, unknown>>) : [];
    const ids = steps.map((s) => s?.['stepId']);
    steps.forEach((s, si) => {
      const text = JSON.stringify(s);
      for (const m of text.matchAll(/\$steps\.([^${}#=!<>&|()'[\]]+?)\.outputs/g)) {
        const at = ids.indexOf(m[1]);
        if (at > si) notes.push({ kind: 'review', pointer: `/workflows/${wi}/steps/${si}`, message: `step "${String(s['stepId'])}" reads $steps.${m[1]}, which comes later: a 1.0 warning, a 1.1 error in a workflow without dependsOn; reorder the steps or declare dependsOn` });
      }
      walk(s, `/workflows/${wi}/steps/${si}`, (value, pointer) => {
        if (isSelectorObject(value)) notes.push({ kind: 'review', pointer, message: 'an object with exactly context, selector and type was a literal in 1.0 and is a Selector Object (evaluated) in 1.1; rename a key if it must stay literal' });
      });
      asList(s['successCriteria']).forEach((c, ci) => {
        const criterion = c as Record<string, unknown>;
        if (fixed.has(`/workflows/${wi}/steps/${si}/successCriteria/${ci}`)) return; // now a simple condition
        if (criterion?.['type'] === 'jsonpath' && criterion['version'] === undefined) {
          notes.push({ kind: 'review', pointer: `/workflows/${wi}/steps/${si}/successCriteria`, message: `jsonpath criterion "${String(criterion['condition'])}" has no version: 1.0 named draft-goessner as the default, 1.1 names RFC 9535. offsetctl already evaluated it as RFC 9535 (no change here); pin version: draft-goessner-dispatch-jsonpath-00 if it was written for Goessner's syntax` });
        }
      });
    });
  });
}

function walk(value: unknown, pointer: string, visitValue: (v: unknown, p: string) => void, depth = 0): void {
  if (depth > 32) return;
  visitValue(value, pointer);
  if (Array.isArray(value)) value.forEach((v, i) => { walk(v, `${pointer}/${i}`, visitValue, depth + 1); });
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) walk(v, `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, visitValue, depth + 1);
}

function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function pointerOf(path: readonly unknown[]): string {
  const tokens: string[] = [];
  for (let i = 0; i < path.length; i++) {
    const node = path[i];
    const child = path[i + 1];
    if (isMap(node) && child !== undefined) {
      const pair = node.items.find((p) => p === child);
      if (pair && isScalar(pair.key)) tokens.push(String(pair.key.value));
    } else if (isSeq(node) && child !== undefined) {
      tokens.push(String(node.items.indexOf(child as never)));
    }
  }
  return tokens.length === 0 ? '' : `/${tokens.join('/')}`;
}

export async function upgradeCommand(file: string, opts: { outputFile?: string; dryRun?: boolean }): Promise<void> {
  const text = await readFile(fromCwd(file), 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw Object.assign(new Error(`cannot read ${file}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`), { code: 'E_DOCUMENT_READ' });
  });
  const result = upgradeText(text, file);
  const target = opts.outputFile ?? file;
  // The result must be a valid 1.1 document as far as the document alone can tell.
  const errors = validateArazzo(parseDocumentText(result.text, target)).filter((d) => d.severity === 'error');
  for (const e of errors) result.notes.push({ kind: 'review', pointer: e.pointer ?? '', message: `after the upgrade: ${e.message}` });
  if (opts.dryRun) currentIO().stdout.write(result.text);
  else await writeFile(fromCwd(target), result.text);
  for (const n of result.notes) currentIO().stderr.write(`${n.kind.padEnd(7)} ${n.pointer || '/'}  ${n.message}\n`);
  const review = result.notes.filter((n) => n.kind === 'review').length;
  currentIO().stderr.write(`${opts.dryRun ? 'would upgrade' : `upgraded ${target}`} to Arazzo 1.1.0; ${review === 0 ? 'nothing needs a person' : `${review} item(s) need a person`}\n`);
}
