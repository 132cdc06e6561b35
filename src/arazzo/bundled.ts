// Packed copies of the engine's optional packages, handed in by whoever packs them. The engine
// never looks for files of a build beside itself: the operator tool's build entry
// (src/cli/bundle-entry.ts) hands in ajv, yaml and the precompiled inputs validators it bundled;
// anyone else (tsc's output, tests, the engine's own package) hands in nothing and the engine
// requires the packages themselves (src/arazzo/_on-demand.ts). Each provider is a function, called
// only when a document needs the package, so handing them in costs start-up nothing.

/** ajv, its 2020-12 entry and ajv-formats, from one file (what scripts/build.mjs bundles). */
export interface AjvProvider {
  ajv(): unknown;
  ajv2020(): unknown;
  formats(): unknown;
}

export interface BundledEngineParts {
  /** ajv and its friends, packed. */
  ajv?: () => AjvProvider;
  /** The `yaml` package, packed. */
  yaml?: () => unknown;
  /** Inputs validators compiled ahead of time, keyed by the sha256 of the schema's JSON. */
  inputsValidators?: () => Record<string, () => unknown>;
}

let parts: BundledEngineParts = {};

/** Hands the engine packed copies of its optional packages (later calls add to or replace earlier ones). */
export function useBundledEngineParts(given: BundledEngineParts): void {
  parts = { ...parts, ...given };
}

/** What was handed in (nothing: the engine uses the packages themselves). */
export function bundledEngineParts(): Readonly<BundledEngineParts> {
  return parts;
}
