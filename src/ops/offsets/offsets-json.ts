// Offsets JSON as a person wrote it (a file, stdin, text pasted into the console) read into data:
// JSON only, with errors that point at the line and column, so a typo at 3 a.m. is found without
// a linter. Shape is checked separately (validateOffsetsShape). Both faces read through this.
import { parse as parseJsonc, type ParseError } from 'jsonc-parser';
import { OpsError } from '../errors.js';

/** Parses offsets JSON text; `name` (a file name, `<stdin>`) starts every message. Throws `E_OFFSETS_INVALID`. */
export function parseOffsetsJson(text: string, name: string): unknown {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.trim() === '') {
    throw new OpsError('E_OFFSETS_INVALID', `${name}: the offsets input is empty; expected JSON like {"offsets": [{"partition": {...}, "offset": {...}}]}`, { field: 'offsets' });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    const detail = (err as Error).message;
    const { line, column } = locate(text, errorPosition(detail, text));
    throw new OpsError('E_OFFSETS_INVALID', `${name}:${line}:${column}: not valid JSON (${firstSentence(detail)}); fix the file and run again`, { field: 'offsets', cause: err });
  }
}

/**
 * Where the JSON goes wrong. V8 names a position only for some errors ("... at position N"); for
 * the common "Unexpected token 'x', ...\"...\" is not valid JSON" it gives none, so the offset
 * comes from jsonc-parser's strict scan (no comments, no trailing commas: plain JSON).
 */
function errorPosition(message: string, text: string): number {
  const at = message.lastIndexOf('position ');
  if (at >= 0) {
    const n = Number.parseInt(message.slice(at + 9), 10);
    if (Number.isFinite(n)) return n;
  }
  const errors: ParseError[] = [];
  parseJsonc(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  return errors[0]?.offset ?? text.length;
}

function locate(text: string, position: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(position, text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: end - lineStart + 1 };
}

function firstSentence(message: string): string {
  // V8 follows "Unexpected token 'x'" with a multi-line excerpt; the position already says where.
  const token = /^Unexpected token '([^']*)'/.exec(message);
  if (token) return `unexpected ${JSON.stringify(token[1])}`;
  const cut = message.indexOf(' in JSON at position');
  const short = cut >= 0 ? message.slice(0, cut) : message;
  return short.length > 120 ? short.slice(0, 120) + '…' : short;
}
