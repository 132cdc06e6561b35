#!/usr/bin/env node
// `npm run build`: type-check and compile everything (src, test, bench) to dist/ with tsc, then
// bundle the CLI with esbuild into dist/bundle/cli/: the entry offsetctl.mjs plus one chunk per
// lazily imported part (code splitting), so a command loads a few files of its own instead of
// ~200 modules, or one file holding every command. The bundle sits three folders deep like
// dist/src/cli/main.js, so the paths the code derives from import.meta.url (../../../package.json,
// ../../../workflows/) hold in both. Packages the code loads on demand through createRequire
// (fontoxpath, JSONPath, better-sqlite3) stay in node_modules and are loaded only when a command
// needs them; ajv, undici and yaml are each bundled into one CommonJS file of their own (below).
// For Node 20 the CLI is also built as one CommonJS file, offsetctl.cjs (see below).
//   --bundle-only   skip tsc: esbuild reads the TypeScript sources itself (prepack, benchmarks).
// `npm pack`/`npm publish` also run `prepare`; the package needs only the bundle, so tsc (which
// also compiles tests and benchmarks) is skipped there too.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
export const bundleFile = join(root, 'dist', 'bundle', 'cli', 'offsetctl.mjs');

const packing = process.env.npm_lifecycle_event === 'prepare' && ['pack', 'publish'].includes(process.env.npm_command ?? '');
if (!process.argv.includes('--bundle-only') && !packing) {
  const tsc = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], { cwd: root, stdio: 'inherit' });
  if (tsc.status !== 0) process.exit(tsc.status ?? 1);
}

const { build } = await import('esbuild');
const outdir = dirname(bundleFile);
// Chunks of an earlier build would otherwise stay behind (and ship) beside the new ones.
rmSync(outdir, { recursive: true, force: true });
await build({
  // The build entry hands the files packed below to the libraries (src/cli/bundle-entry.ts).
  entryPoints: { offsetctl: join(root, 'src', 'cli', 'bundle-entry.ts') },
  outdir,
  outExtension: { '.js': '.mjs' },
  // Code splitting: every lazy import() of the sources (a command group's actions, the Arazzo
  // engine, the Kafka client layer, the web console) becomes its own chunk beside the entry, so
  // `offsetctl connectors` parses and runs only what it uses. Chunks stay in the entry's folder:
  // the paths derived from import.meta.url (../../../package.json) hold in every chunk.
  splitting: true,
  chunkNames: 'chunk-[hash]',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20.19',
  // CommonJS dependencies inside an ES module bundle still call require() for Node built-ins.
  banner: { js: "import { createRequire as __offsetctlRequire } from 'node:module'; const require = __offsetctlRequire(import.meta.url);" },
  // @platformatic/kafka's wasm-utils read native.wasm next to their own module at run time: the
  // Kafka client stays in node_modules (loaded only by the commands that talk to Kafka).
  external: ['better-sqlite3', '@platformatic/kafka'],
  // ES module builds first: jsonc-parser's `main` is a UMD wrapper whose inner require()s a
  // bundler cannot follow.
  mainFields: ['module', 'main'],
  sourcemap: 'linked',
  logLevel: 'warning',
});
// The same CLI as one CommonJS file, for a Node without a module compile cache (20): bin/offsetctl
// runs it through V8's code cache (src/cli/code-cache.ts), which only a classic script can use.
// Lazy imports stay lazy (esbuild wraps each module in an init function); import.meta.url becomes
// the file's own URL, in the same folder as the chunks, so derived paths hold here too.
const cjsCommon = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20.19',
  external: ['better-sqlite3', '@platformatic/kafka'],
  // The Kafka client's door (src/kafka/load.ts) imports it on demand: here that becomes require(),
  // as its static import did, because a script run from V8's code cache has no dynamic import
  // callback on Node 20 (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING on the second run).
  supported: { 'dynamic-import': false },
  mainFields: ['module', 'main'],
  define: { 'import.meta.url': '__offsetctlImportMetaUrl' },
  // Strict mode first, as in the ES module build (a directive counts only at the very top).
  banner: { js: "'use strict'; const __offsetctlImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
  logLevel: 'warning',
};
await build({ ...cjsCommon, entryPoints: [join(root, 'src', 'cli', 'bundle-entry.ts')], outfile: join(outdir, 'offsetctl.cjs') });
await build({ ...cjsCommon, entryPoints: [join(root, 'src', 'cli', 'code-cache.ts')], outfile: join(outdir, 'code-cache.cjs') });
/**
 * Packages the code requires on demand, each bundled into one CommonJS file beside the chunks. The
 * libraries never look for these files: src/cli/bundle-entry.ts (the entry above) hands each one in.
 */
const bundleCjs = (file, contents) =>
  build({
    stdin: { contents, resolveDir: root, sourcefile: file, loader: 'js' },
    outfile: join(outdir, file),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20.19',
    logLevel: 'warning',
  });
// ajv (+ its 2020-12 entry and ajv-formats): the engine requires it synchronously when a workflow
// has inputs (src/arazzo/_on-demand.ts), and one file loads in about half the time of ajv's
// hundred (measured: 140 vs 210 ms CPU with bare Node's 90).
await bundleCjs(
  'ajv-bundle.cjs',
  "module.exports = { ajv: () => require('ajv'), ajv2020: () => require('ajv/dist/2020.js'), formats: () => require('ajv-formats') };",
);
// undici's agent and request method likewise (src/http/client.ts): about thirty CommonJS files
// that every command talking to Connect resolved, read and compiled one by one.
await bundleCjs('undici-bundle.cjs', "module.exports = { Agent: require('undici/lib/dispatcher/agent'), request: require('undici/lib/api/api-request') };");
// yaml likewise (src/arazzo/_on-demand.ts, loadYaml): a command whose documents come from the
// document cache never loads it; one that parses loads one file instead of seventy.
await bundleCjs('yaml-bundle.cjs', "module.exports = require('yaml');");
// node-postgres likewise (src/store/postgres/driver.ts), with pgpass (the .pgpass reader), required
// only when a team store is opened. Its optional native binding (pg-native, libpq) is not used
// and not installed.
await build({
  stdin: {
    contents: "const pg = require('pg'); module.exports = { Pool: pg.Pool, Client: pg.Client, pgpass: require('pgpass') };",
    resolveDir: root,
    sourcefile: 'pg-bundle.cjs',
    loader: 'js',
  },
  outfile: join(outdir, 'pg-bundle.cjs'),
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20.19',
  logLevel: 'warning',
  external: ['pg-native'],
});
// The shipped workflows' inputs schemas, compiled ahead of time (scripts/inputs-validators.mjs).
const { buildInputsValidators } = await import('./inputs-validators.mjs');
await buildInputsValidators(root, join(root, 'workflows'), join(outdir, 'inputs-validators.cjs'));
