// JSON pointer → line:column, by walking the YAML AST that the parser kept.

import type { Document, LineCounter, Node } from 'yaml';
import { loadYaml } from '../_on-demand.js';

/** RFC 6901 tokens of a pointer (`''` is the whole document). */
export function pointerTokens(pointer: string): string[] {
  if (pointer === '' || pointer === '#') return [];
  const body = pointer.startsWith('#') ? pointer.slice(1) : pointer;
  return body
    .split('/')
    .slice(1)
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

export function locatePointer(doc: Document, lines: LineCounter, pointer: string): { line: number; column: number } | undefined {
  const { isAlias, isMap, isSeq } = loadYaml();
  let node: unknown = doc.contents;
  // Where a member is named by its key, the key's position is the useful one: a block value
  // starts on the next line.
  let position: number | undefined = rangeStart(node);
  for (const token of pointerTokens(pointer)) {
    if (isAlias(node)) node = node.resolve(doc);
    if (isMap(node)) {
      const pair = node.items.find((p) => keyText(p.key) === token);
      if (!pair) return undefined;
      position = rangeStart(pair.key) ?? rangeStart(pair.value);
      node = pair.value;
    } else if (isSeq(node)) {
      const index = Number(token);
      if (!Number.isInteger(index)) return undefined;
      node = node.items[index];
      position = rangeStart(node);
      if (node === undefined) return undefined;
    } else {
      return undefined;
    }
  }
  if (position === undefined) return undefined;
  const pos = lines.linePos(position);
  return { line: pos.line, column: pos.col };
}

function keyText(key: unknown): string | undefined {
  if (loadYaml().isScalar(key)) return String(key.value);
  return undefined;
}

function rangeStart(node: unknown): number | undefined {
  const range = (node as Node | null | undefined)?.range;
  return range ? range[0] : undefined;
}
