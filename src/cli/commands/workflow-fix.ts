// Edits to a workflow document's text at the yaml Document API's node ranges, so comments, key
// order, quoting and line breaks outside the edited nodes stay byte for byte. Used by
// `workflow upgrade` and `workflow lint --fix`; the engine says what to change (lint/fixes.ts).
import type { Document, Node, Pair, Scalar, YAMLMap } from 'yaml';
import type { CriterionFix } from '../../arazzo/lint/index.js';
import { loadYaml } from '../../arazzo/yaml.js';

// This module is imported only by `workflow upgrade` and `workflow lint`.
const { isMap, isScalar, parse } = loadYaml();

export interface Edit {
  start: number;
  end: number;
  text: string;
}

/** Replaces a scalar's source text (its quotes kept) by what `change` makes of it. */
export function scalarEdit(text: string, node: Scalar, change: (source: string) => string): Edit {
  const [start, end] = node.range ?? [0, 0];
  const source = text.slice(start, end);
  const quote = source[0] === '"' || source[0] === "'" ? source[0] : '';
  const inner = quote ? source.slice(1, -1) : source;
  return { start, end, text: quote + change(inner) + quote };
}

/** A scalar's source text replaced by `value`, in the scalar's own quoting where that can hold it. */
export function scalarValueEdit(text: string, node: Scalar, value: string): Edit {
  const [start, end] = node.range ?? [0, 0];
  const first = text[start];
  if (first === "'") return { start, end, text: `'${value.replace(/'/g, "''")}'` };
  if (first === '"') return { start, end, text: JSON.stringify(value) };
  // Plain only when YAML reads the text back as the same string (no ': ', ' #', leading quote ...).
  let plain = false;
  try {
    plain = !value.includes('\n') && parse(`k: ${value}`) !== null && (parse(`k: ${value}`) as { k?: unknown }).k === value;
  } catch {
    plain = false;
  }
  return { start, end, text: plain ? value : JSON.stringify(value) };
}

/** Applies non-overlapping edits (from the end backwards, so earlier offsets stay right). */
export function applyEdits(text: string, edits: readonly Edit[]): string {
  let out = text;
  for (const e of [...edits].sort((a, b) => b.start - a.start)) out = out.slice(0, e.start) + e.text + out.slice(e.end);
  return out;
}

function pairKey(pair: Pair): string | undefined {
  return isScalar(pair.key) && typeof pair.key.value === 'string' ? pair.key.value : undefined;
}

function keyStart(pair: Pair): number {
  return (pair.key as Node).range?.[0] ?? 0;
}

function valueEnd(pair: Pair): number {
  return (pair.value as Node | null)?.range?.[1] ?? (pair.key as Node).range?.[1] ?? 0;
}

/**
 * Removes the pairs named in `keys` from a map. Runs of removed pairs go as one edit, so that
 * the pair that follows them (or, in a block map on a `- ` line, that moves up onto the line)
 * keeps its place.
 */
export function removePairs(text: string, map: YAMLMap, keys: readonly string[]): Edit[] {
  const edits: Edit[] = [];
  const items = map.items as Pair[];
  for (let i = 0; i < items.length; i++) {
    if (!keys.includes(pairKey(items[i]!) ?? '')) continue;
    let j = i;
    while (j + 1 < items.length && keys.includes(pairKey(items[j + 1]!) ?? '')) j++;
    const first = items[i]!;
    const last = items[j]!;
    const next = items[j + 1];
    const prev = items[i - 1];
    let start = keyStart(first);
    let end = valueEnd(last);
    if (map.flow) {
      if (next) end = keyStart(next);
      else if (prev) start = valueEnd(prev);
    } else {
      const lineStart = text.lastIndexOf('\n', start - 1) + 1;
      const ownLine = /^\s*$/.test(text.slice(lineStart, start));
      if (ownLine) {
        start = lineStart;
        const eol = text.indexOf('\n', end);
        end = eol === -1 ? text.length : eol + 1;
      } else if (next) {
        end = keyStart(next); // first pair after `- `: the next key moves up onto this line
      }
    }
    edits.push({ start, end, text: '' });
    i = j;
  }
  return edits;
}

function tokens(pointer: string): string[] {
  return pointer === '' ? [] : pointer.slice(1).split('/').map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The edits that apply criterion fixes to the text `doc` was parsed from (with keepSourceTokens). */
export function criterionFixEdits(doc: Document, text: string, fixes: readonly CriterionFix[]): Edit[] {
  const edits: Edit[] = [];
  for (const fix of fixes) {
    const path = tokens(fix.pointer).map((t) => (/^\d+$/.test(t) ? Number(t) : t));
    const node = path.length === 0 ? doc.contents : doc.getIn(path, true);
    if (!isMap(node)) continue;
    const condition = node.get('condition', true);
    if (!isScalar(condition)) continue;
    edits.push(scalarValueEdit(text, condition, fix.condition), ...removePairs(text, node, fix.remove));
  }
  return edits;
}
