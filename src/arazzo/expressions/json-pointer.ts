// RFC 6901 JSON Pointers, as used after `#` in runtime expressions (`$response.body#/a/0`).
// Look-ups never throw: an absent member, a bad array index or a walk into a scalar all give
// `undefined`, because the runtime-expression contract is "absent data is undefined".

/** Splits a pointer into unescaped reference tokens, or returns the offset of the first bad `~` escape. */
export function parseJsonPointer(pointer: string): string[] | { badEscapeAt: number } {
  if (pointer === '') return [];
  const tokens: string[] = [];
  let current = '';
  // Index 0 is the leading '/', checked by the caller's grammar.
  for (let i = 1; i < pointer.length; i++) {
    const ch = pointer[i] as string;
    if (ch === '/') {
      tokens.push(current);
      current = '';
    } else if (ch === '~') {
      const next = pointer[i + 1];
      if (next === '0') current += '~';
      else if (next === '1') current += '/';
      else return { badEscapeAt: i };
      i++;
    } else {
      current += ch;
    }
  }
  tokens.push(current);
  return tokens;
}

/** Escapes one reference token (`~` → `~0`, `/` → `~1`). */
export function escapeJsonPointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

const ARRAY_INDEX = /^(0|[1-9][0-9]*)$/;

/** One member or element of a JSON value; own properties only, so `__proto__` and friends are absent. */
export function memberOf(value: unknown, key: string): unknown {
  if (Array.isArray(value)) {
    if (!ARRAY_INDEX.test(key)) return undefined;
    return value[Number(key)];
  }
  if (value !== null && typeof value === 'object' && Object.hasOwn(value, key)) {
    return (value as Record<string, unknown>)[key];
  }
  return undefined;
}

// Pointers come from documents, so there are few of them and a loop resolves the same ones on
// every step: parse each once (bounded, in case pointers are generated).
const parsedPointers = new Map<string, string[] | { badEscapeAt: number }>();

function parsedPointer(pointer: string): string[] | { badEscapeAt: number } {
  let tokens = parsedPointers.get(pointer);
  if (tokens === undefined) {
    tokens = parseJsonPointer(pointer);
    if (parsedPointers.size < 1000) parsedPointers.set(pointer, tokens);
  }
  return tokens;
}

/** Resolves a pointer (`''` = the whole value) against a value; `undefined` when anything is missing. */
export function resolveJsonPointer(value: unknown, pointer: string): unknown {
  const tokens = parsedPointer(pointer);
  if (!Array.isArray(tokens)) return undefined;
  let current = value;
  for (const token of tokens) {
    current = memberOf(current, token);
    if (current === undefined) return undefined;
  }
  return current;
}
