// Collects validation findings as data (not thrown), so one run can show every problem.

import type { Diagnostic } from '../errors.js';
import type { LoadedDocument } from './parse-document.js';

export class _Report {
  readonly diagnostics: Diagnostic[] = [];
  constructor(private readonly doc: LoadedDocument) {}

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

export const ID_PATTERN = /^[A-Za-z0-9_\-]+$/;
export const NAME_PATTERN = /^[a-zA-Z0-9.\-_]+$/;
