// Where strict JSON goes wrong. `.json` documents are held to JSON (YAML would accept `{"a": }`),
// and V8 does not always say where the error is, so the offset is found by bisecting prefixes:
// a prefix before the error is merely incomplete, a prefix past it is wrong.

/** Offset of the first JSON syntax error, or undefined when the text is valid JSON. */
export function jsonErrorOffset(text: string): { offset: number; message: string } | undefined {
  const first = tryParse(text);
  if (first === undefined) return undefined;
  const stated = /at position (\d+)/.exec(first);
  if (stated) return { offset: Math.min(Number(stated[1]), text.length), message: first };
  let lo = 0;
  let hi = text.length;
  // Invariant: the prefix of length `hi` is wrong, the prefix of length `lo` is not (yet).
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (isWrong(text.slice(0, mid))) hi = mid;
    else lo = mid;
  }
  return { offset: Math.max(0, hi - 1), message: first };
}

function tryParse(text: string): string | undefined {
  try {
    JSON.parse(text);
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

function isWrong(prefix: string): boolean {
  const message = tryParse(prefix);
  if (message === undefined || /end of JSON input/.test(message)) return false;
  const stated = /at position (\d+)/.exec(message);
  return !(stated && Number(stated[1]) >= prefix.length);
}
