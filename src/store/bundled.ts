// node-postgres (pg, pgpass), packed, handed in by whoever packs it: the operator tool's build
// entry (src/cli/bundle-entry.ts) hands in the one CommonJS file scripts/build.mjs made of them.
// The store never looks for a build's files beside itself; handed nothing (tsc's output, tests),
// it requires the packages (src/store/postgres/driver.ts). Called only when a team store is opened.

export interface PgParts {
  Pool?: unknown;
  Client?: unknown;
  pgpass?: unknown;
}

let provider: (() => PgParts) | undefined;

/** Hands the team store a packed node-postgres (a function: called when a team store is first opened). */
export function useBundledPg(given: () => PgParts): void {
  provider = given;
}

/** The packed node-postgres handed in, if any. */
export function bundledPg(): (() => PgParts) | undefined {
  return provider;
}
