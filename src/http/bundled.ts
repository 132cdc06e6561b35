// undici's agent and request method, packed, handed in by whoever packs them: the operator tool's
// build entry (src/cli/bundle-entry.ts) hands in the one CommonJS file scripts/build.mjs made of
// them. The client never looks for a build's files beside itself; handed nothing (tsc's output,
// tests), it requires undici's own files (src/http/client.ts). Called only when a client is made.

export interface UndiciParts {
  Agent?: unknown;
  request?: unknown;
}

let provider: (() => UndiciParts) | undefined;

/** Hands the HTTP client a packed undici (a function: it is called the first time a client is made). */
export function useBundledUndici(given: () => UndiciParts): void {
  provider = given;
}

/** The packed undici handed in, if any. */
export function bundledUndici(): (() => UndiciParts) | undefined {
  return provider;
}
