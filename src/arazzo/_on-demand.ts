// Packages only some documents need (XPath, JSONPath in either dialect), loaded synchronously
// the first time a document uses them, so a command pays for what its document uses: fontoxpath
// alone costs more start-up than the whole runner. Each package ships a CommonJS entry, so a
// plain `require` keeps the criteria and request-body code synchronous.
import { createRequire } from 'node:module';
import { bundledEngineParts, type AjvProvider } from './bundled.js';

type Fontoxpath = typeof import('fontoxpath');
type Slimdom = typeof import('slimdom');
type JsonPathPlus = typeof import('jsonpath-plus');
type Rfc9535 = typeof import('jsonpath-rfc9535');
type Rfc9535Parse = typeof import('jsonpath-rfc9535/parser').default;
export type Yaml = typeof import('yaml');

const requireCjs = createRequire(import.meta.url);

let fontoxpath: Fontoxpath | undefined;
let slimdom: Slimdom | undefined;
let jsonPathPlus: JsonPathPlus | undefined;
let rfc9535: Rfc9535 | undefined;
let rfc9535Parse: Rfc9535Parse | undefined;
let ajvBundle: AjvProvider | null | undefined;
let yaml: Yaml | undefined;

/**
 * ajv is about a hundred CommonJS files: resolving, reading and compiling them one by one is
 * most of its start-up cost. A packed copy handed in (src/arazzo/bundled.ts: the CLI's build
 * bundles ajv, its 2020-12 entry and ajv-formats into one file) is used when there is one; the
 * packages themselves otherwise (tsc's output, tests, the engine's own package).
 */
function bundledAjv(): AjvProvider | undefined {
  if (ajvBundle === undefined) ajvBundle = tryProvider(bundledEngineParts().ajv) ?? null;
  return ajvBundle ?? undefined;
}

/** A handed-in provider's result; a provider that fails only costs speed (the package is used). */
function tryProvider<T>(provider: (() => T) | undefined): T | undefined {
  if (provider === undefined) return undefined;
  try {
    return provider();
  } catch {
    return undefined;
  }
}

let precompiledInputs: Record<string, () => unknown> | null | undefined;

/**
 * The shipped workflows' inputs validators, compiled by ajv at build time (standalone code,
 * scripts/inputs-validators.mjs) and keyed by the sha256 of the schema's JSON, when handed in
 * (src/arazzo/bundled.ts; the CLI's build does). None (tsc's output, tests) or without the key,
 * the schema is compiled.
 */
export function loadPrecompiledInputs(key: string): unknown {
  if (precompiledInputs === undefined) {
    precompiledInputs = tryProvider(bundledEngineParts().inputsValidators) ?? null;
  }
  return Object.hasOwn(precompiledInputs ?? {}, key) ? precompiledInputs![key]!() : undefined;
}

/** The `ajv` package's exports (draft-07 `Ajv`). */
export function loadAjv(): unknown {
  return bundledAjv()?.ajv() ?? requireCjs('ajv');
}

/** `ajv/dist/2020.js` (`Ajv2020`). */
export function loadAjv2020(): unknown {
  return bundledAjv()?.ajv2020() ?? requireCjs('ajv/dist/2020.js');
}

/** `ajv-formats`. */
export function loadAjvFormats(): unknown {
  return bundledAjv()?.formats() ?? requireCjs('ajv-formats');
}

/**
 * The `yaml` package (a packed copy when one was handed in, like ajv), loaded when a
 * document is really parsed: a rewind whose workflow and OpenAPI description come from the
 * document cache never loads it (~260 KB of code to compile on every command otherwise).
 */
export function loadYaml(): Yaml {
  if (yaml === undefined) {
    yaml = (tryProvider(bundledEngineParts().yaml) as Yaml | undefined) ?? (requireCjs('yaml') as Yaml);
  }
  return yaml;
}

export function loadFontoxpath(): Fontoxpath {
  return (fontoxpath ??= requireCjs('fontoxpath') as Fontoxpath);
}

export function loadSlimdom(): Slimdom {
  return (slimdom ??= requireCjs('slimdom') as Slimdom);
}

export function loadJsonPathPlus(): JsonPathPlus {
  return (jsonPathPlus ??= requireCjs('jsonpath-plus') as JsonPathPlus);
}

export function loadRfc9535(): Rfc9535 {
  return (rfc9535 ??= requireCjs('jsonpath-rfc9535') as Rfc9535);
}

export function loadRfc9535Parser(): Rfc9535Parse {
  return (rfc9535Parse ??= (requireCjs('jsonpath-rfc9535/parser') as { default: Rfc9535Parse }).default);
}
