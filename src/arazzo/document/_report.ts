// Collects validation findings as data (not thrown), so one run can show every problem.

import type { Diagnostic } from '../errors.js';
import type { LoadedDocument } from './parse-document.js';

export class _Report {
  readonly diagnostics: Diagnostic[] = [];
  /** The document declares Arazzo 1.1.x: its fields and grammar apply. 1.0.x documents keep 1.0's rules. */
  readonly v11: boolean;
  constructor(private readonly doc: LoadedDocument) {
    this.v11 = isArazzo11(doc.value);
  }

  /** A 1.1-only feature used in a 1.0.x document: an error that names the way forward. */
  needs11(pointer: string, what: string): void {
    this.error('requires-1.1', pointer, `${what} is new in Arazzo 1.1, but this document declares arazzo: ${String((this.doc.value as JsonObject)['arazzo'])}; set \`arazzo: 1.1.0\` (\`offsetctl workflow upgrade ${this.doc.file}\` does it, keeping comments) or remove it`);
  }

  error(code: string, pointer: string, message: string): void {
    this.add('error', code, pointer, message);
  }

  /** Whether an error was already reported at or below this pointer (to avoid saying it twice). */
  hasErrorUnder(pointer: string): boolean {
    return this.diagnostics.some((d) => d.severity === 'error' && (d.pointer === pointer || d.pointer?.startsWith(pointer + '/')));
  }

  warn(code: string, pointer: string, message: string): void {
    this.add('warning', code, pointer, message);
  }

  private add(severity: Diagnostic['severity'], code: string, pointer: string, message: string): void {
    const at = this.doc.locate(pointer) ?? this.nearest(pointer);
    const diagnostic: Diagnostic = { code, message, severity, pointer, file: this.doc.file };
    if (at) {
      diagnostic.line = at.line;
      diagnostic.column = at.column;
    }
    this.diagnostics.push(diagnostic);
  }

  // A missing field has no position of its own: point at the object that should hold it.
  private nearest(pointer: string): { line: number; column: number } | undefined {
    let p = pointer;
    while (p.length > 0) {
      p = p.slice(0, p.lastIndexOf('/'));
      const at = this.doc.locate(p);
      if (at) return at;
    }
    return undefined;
  }
}

export type JsonObject = Record<string, unknown>;

/** `arazzo: 1.1.x` (any patch, optionally a pre-release suffix). */
export function isArazzo11(root: unknown): boolean {
  return isObject(root) && typeof root['arazzo'] === 'string' && /^1\.1\.\d+(-.+)?$/.test(root['arazzo']);
}

/** An Arazzo 1.1 Selector Object: `{context, selector, type}` (and `x-` extensions). */
export function isSelectorObject(value: unknown): value is { context: unknown; selector: unknown; type: unknown } {
  if (!isObject(value)) return false;
  const keys = Object.keys(value).filter((k) => !k.startsWith('x-'));
  return keys.length === 3 && 'context' in value && 'selector' in value && 'type' in value;
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function asObject(value: unknown): JsonObject | undefined {
  return isObject(value) ? value : undefined;
}

export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function asString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** `name` is defined by `keys` when it is one of them or one of them followed by property access (`b.c` → `b`). */
export function isDefinedName(name: string, keys: Iterable<string>): boolean {
  for (const key of keys) {
    if (name === key || name.startsWith(key + '.') || name.startsWith(key + '[')) return true;
  }
  return false;
}

export const ID_PATTERN = /^[A-Za-z0-9_-]+$/;
export const NAME_PATTERN = /^[a-zA-Z0-9.\-_]+$/;
