// Hand-written scanner for the Arazzo 1.0.1 runtime-expression ABNF. The ABNF's `name = *CHAR`
// cannot end anywhere inside a longer string, so names are restricted to letters, digits and
// `_ - .` (the spec's own pattern for output and component keys), and where an expression stops
// depends on where it is written: a whole string, inside `{...}`, or inside a simple condition.
// Step, workflow and source ids only SHOULD match `[A-Za-z0-9_-]+`, so other ids are read too.

import { ArazzoError } from '../errors.js';
import type { RuntimeExpression } from './ast.js';

/** Where the expression is written; decides which characters end a header name or a JSON pointer. */
export type ExpressionMode = 'whole' | 'embedded' | 'condition';

export const EXPRESSION_ROOTS = [
  'url', 'method', 'statusCode', 'request', 'response', 'inputs', 'outputs',
  'steps', 'workflows', 'sourceDescriptions', 'components',
  // Arazzo 1.1: `$message.header.<name>` / `$message.payload#/...` on receive steps, `$self`.
  'message', 'self',
] as const;

const STEP_FIELDS = ['outputs'];
const WORKFLOW_FIELDS = ['inputs', 'outputs'];
const COMPONENT_KINDS = ['inputs', 'parameters', 'successActions', 'failureActions'];
const MESSAGE_SOURCES = ['header', 'query', 'path', 'body'];

const NAME_CHAR = /[\p{L}\p{N}_.-]/u;
const ID_CHAR = /[A-Za-z0-9_-]/;
const WORD_CHAR = /[A-Za-z]/;
// RFC 9110 tchar. In conditions `! & | '` end a header name so `$response.header.a!='x'` reads naturally.
const TCHAR = /[!#$%&'*+.^_`|~0-9A-Za-z-]/;
const CONDITION_TCHAR = /[#$%*+.^_`~0-9A-Za-z-]/;
const CONDITION_POINTER_END = /[\s=!<>&|()[\]']/;
const CONDITION_ID_END = /[=!<>&|()[\]']/;

/** Result of scanning one expression out of a longer text. */
export interface ScannedExpression {
  expression: RuntimeExpression;
  /** Offset just after the expression. */
  end: number;
}

class Scanner {
  pos: number;
  constructor(readonly source: string, readonly start: number, readonly mode: ExpressionMode) {
    this.pos = start;
  }

  fail(expected: string, at = this.pos): never {
    const found = at < this.source.length ? `'${this.source[at]}'` : 'the end';
    throw new ArazzoError(
      'E_EXPRESSION',
      `invalid runtime expression "${this.source}": at character ${at + 1}, expected ${expected} but found ${found}`,
      { location: { column: at + 1 } },
    );
  }

  peek(): string | undefined {
    return this.source[this.pos];
  }

  expect(ch: string, what: string): void {
    if (this.source[this.pos] !== ch) this.fail(what);
    this.pos++;
  }

  take(pattern: RegExp): string {
    const from = this.pos;
    while (this.pos < this.source.length && pattern.test(this.source[this.pos] as string)) this.pos++;
    return this.source.slice(from, this.pos);
  }

  word(allowed: readonly string[], what: string): string {
    const from = this.pos;
    const word = this.take(WORD_CHAR);
    if (!allowed.includes(word)) this.fail(`${what} (one of ${allowed.join(', ')})`, from);
    return word;
  }

  id(what: string): string {
    const id = this.take(ID_CHAR);
    if (id === '') this.fail(what);
    return id;
  }

  /**
   * A stepId or workflowId followed by `.<field>`. Ids SHOULD match `[A-Za-z0-9_-]+`; one that
   * breaks only that SHOULD (`Search Stations`, `get.pets`) is the text up to the first
   * `.<field>`, as long as it holds nothing that ends an expression where it is written.
   */
  idBefore(fields: readonly string[], what: string): string {
    const from = this.pos;
    if (this.take(ID_CHAR) !== '' && this.fieldAt(this.pos, fields)) return this.source.slice(from, this.pos);
    for (let k = from + 1; k < this.source.length && !this.idEnds(this.source[k] as string); k++) {
      if (this.fieldAt(k, fields)) {
        this.pos = k;
        return this.source.slice(from, k);
      }
    }
    this.pos = from;
    return this.id(what);
  }

  /** `.<field>` at `k`, not followed by more of a word (`.outputsX` is no field). */
  fieldAt(k: number, fields: readonly string[]): boolean {
    if (this.source[k] !== '.') return false;
    return fields.some((f) => this.source.startsWith(f, k + 1) && !WORD_CHAR.test(this.source[k + 1 + f.length] ?? ''));
  }

  /**
   * Characters no loosely written id may hold: they end (or start) an expression here. Spaces
   * may, even in a condition: going on to another operand there needs an operator or a `$`.
   */
  idEnds(ch: string): boolean {
    if (ch === '$' || ch === '{' || ch === '}' || ch === '#') return true;
    return this.mode === 'condition' && CONDITION_ID_END.test(ch);
  }

  /** A source description name: `[A-Za-z0-9_-]+` as the spec recommends, else the text up to the first `.`. */
  sourceName(what: string): string {
    const from = this.pos;
    while (this.pos < this.source.length && this.source[this.pos] !== '.' && !this.idEnds(this.source[this.pos] as string)) this.pos++;
    if (this.pos === from) this.fail(what);
    return this.source.slice(from, this.pos);
  }

  /** A dotted name: non-empty segments of name characters separated by single dots. */
  name(what: string): string {
    const from = this.pos;
    const name = this.take(NAME_CHAR);
    if (name === '') this.fail(what);
    const bad = name.startsWith('.') ? 0 : name.includes('..') ? name.indexOf('..') + 1 : name.endsWith('.') ? name.length - 1 : -1;
    if (bad !== -1) this.fail(`${what} (no empty segment between dots)`, from + bad);
    return name;
  }

  headerToken(): string {
    const token = this.take(this.mode === 'condition' ? CONDITION_TCHAR : TCHAR);
    if (token === '') this.fail('a header name');
    return token;
  }

  /** `#` then an RFC 6901 pointer; returns undefined when no `#` follows. */
  optionalPointer(): string | undefined {
    if (this.peek() !== '#') return undefined;
    this.pos++;
    const from = this.pos;
    while (this.pos < this.source.length && !this.pointerEnds(this.source[this.pos] as string)) {
      const ch = this.source[this.pos];
      if (ch === '~' && !/[01]/.test(this.source[this.pos + 1] ?? '')) this.fail("'~0' or '~1' (a JSON pointer escape)");
      this.pos += ch === '~' ? 2 : 1;
    }
    const pointer = this.source.slice(from, this.pos);
    if (pointer !== '' && !pointer.startsWith('/')) this.fail("'/' (a JSON pointer starts with '/')", from);
    return pointer;
  }

  pointerEnds(ch: string): boolean {
    if (this.mode === 'embedded') return ch === '}';
    if (this.mode === 'condition') return CONDITION_POINTER_END.test(ch);
    return false;
  }

  optionalDottedName(what: string): string | undefined {
    if (this.peek() !== '.') return undefined;
    this.pos++;
    return this.name(what);
  }
}

function withPointer<T extends object>(node: T, pointer: string | undefined): T & { pointer?: string } {
  return pointer === undefined ? node : { ...node, pointer };
}

function withName<T extends object>(node: T, name: string | undefined): T & { name?: string } {
  return name === undefined ? node : { ...node, name };
}

/** RuntimeExpression without `text`, distributed over the union members. */
type ExpressionParts = RuntimeExpression extends infer T ? (T extends unknown ? Omit<T, 'text'> : never) : never;

function scanBody(s: Scanner): ExpressionParts {
  s.expect('$', "'$' (runtime expressions start with '$')");
  const rootAt = s.pos;
  const root = s.take(WORD_CHAR);
  if (!(EXPRESSION_ROOTS as readonly string[]).includes(root)) {
    s.fail(`a root (${EXPRESSION_ROOTS.map((r) => `$${r}`).join(', ')})`, rootAt);
  }
  switch (root) {
    case 'url':
    case 'method':
    case 'statusCode':
    case 'self':
      return { root };
    case 'message': {
      s.expect('.', "'.' after $message");
      const source = s.word(['header', 'payload'], 'a $message source');
      if (source === 'payload') {
        if (s.peek() === '.') s.fail("'#' and a JSON pointer (write $message.payload#/field, not $message.payload.field)");
        return withPointer({ root, source }, s.optionalPointer());
      }
      s.expect('.', "'.' after $message.header");
      return { root, source: 'header', name: s.headerToken() };
    }
    case 'request':
    case 'response': {
      s.expect('.', `'.' after $${root}`);
      const source = s.word(MESSAGE_SOURCES, `a $${root} source`);
      if (source === 'body') return withPointer({ root, source }, s.optionalPointer());
      s.expect('.', `'.' after $${root}.${source}`);
      const name = source === 'header' ? s.headerToken() : s.name(`a ${source} parameter name`);
      return { root, source: source as 'header' | 'query' | 'path', name };
    }
    case 'inputs':
    case 'outputs': {
      s.expect('.', `'.' after $${root}`);
      const name = s.name(`an ${root === 'inputs' ? 'input' : 'output'} name`);
      return withPointer({ root, name }, s.optionalPointer());
    }
    case 'steps':
    case 'workflows': {
      s.expect('.', `'.' after $${root}`);
      const id = s.idBefore(root === 'steps' ? STEP_FIELDS : WORKFLOW_FIELDS, root === 'steps' ? 'a stepId' : 'a workflowId');
      s.expect('.', `'.' after the ${root === 'steps' ? 'stepId' : 'workflowId'}`);
      const field = s.word(root === 'steps' ? STEP_FIELDS : WORKFLOW_FIELDS, 'a field');
      const name = s.optionalDottedName(`an ${field === 'inputs' ? 'input' : 'output'} name`);
      const node = root === 'steps' ? { root, stepId: id, field } : { root, workflowId: id, field };
      return withPointer(withName(node, name), s.optionalPointer());
    }
    case 'sourceDescriptions': {
      s.expect('.', "'.' after $sourceDescriptions");
      const name = s.sourceName('a source description name');
      const field = s.optionalDottedName('a field of the source description');
      return field === undefined ? { root, name } : { root, name, field };
    }
    default: {
      s.expect('.', "'.' after $components");
      const kind = s.word(COMPONENT_KINDS, 'a components field');
      const name = s.optionalDottedName(`a name in $components.${kind}`);
      return withPointer(withName({ root: 'components' as const, kind }, name), s.optionalPointer());
    }
  }
}

/**
 * Scans one runtime expression starting at `start` (which must be a `$`) and returns where it ends.
 * Used by the embedded-string and simple-condition parsers; throws ArazzoError('E_EXPRESSION').
 */
export function scanRuntimeExpression(source: string, start: number, mode: ExpressionMode): ScannedExpression {
  const scanner = new Scanner(source, start, mode);
  const body = scanBody(scanner);
  const text = source.slice(start, scanner.pos);
  return { expression: { ...body, text } as RuntimeExpression, end: scanner.pos };
}

/**
 * Parses a whole string as one runtime expression.
 * @example parseRuntimeExpression('$steps.login.outputs.token') // {root: 'steps', stepId: 'login', field: 'outputs', name: 'token', ...}
 * @throws ArazzoError('E_EXPRESSION') naming the character position and what was expected.
 */
export function parseRuntimeExpression(text: string): RuntimeExpression {
  if (typeof text !== 'string') {
    throw new ArazzoError('E_EXPRESSION', `a runtime expression must be a string, got ${text === null ? 'null' : typeof text}`);
  }
  const scanner = new Scanner(text, 0, 'whole');
  const body = scanBody(scanner);
  if (scanner.pos !== text.length) scanner.fail('the end of the expression');
  return { ...body, text } as RuntimeExpression;
}

/** True when the whole text is one valid runtime expression. */
export function isRuntimeExpression(text: string): boolean {
  try {
    parseRuntimeExpression(text);
    return true;
  } catch (error) {
    if (error instanceof ArazzoError) return false;
    throw error;
  }
}

/**
 * True when text starting at `start` is clearly meant as an expression: `$` plus a known root
 * followed by the end, `.`, `#` or (embedded) `}`. Such text must parse; anything else (`$5`,
 * `$HOME`, `$statusCode == 200`) is an ordinary string.
 */
export function looksLikeRuntimeExpression(text: string, start = 0): boolean {
  if (text[start] !== '$') return false;
  const match = /^[A-Za-z]+/.exec(text.slice(start + 1, start + 1 + 24));
  if (!match || !(EXPRESSION_ROOTS as readonly string[]).includes(match[0])) return false;
  const next = text[start + 1 + match[0].length];
  return next === undefined || next === '.' || next === '#' || next === '}';
}
