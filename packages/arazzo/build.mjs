// Builds the package from the engine's sources (src/arazzo): type declarations with tsc (dist/types), and the
// JavaScript as one esbuild bundle per entry (the API, the CLI) with the engine's few libraries
// inside, so the package has no runtime dependencies: it installs offline, from a tarball, into
// an empty folder. The packages the engine loads on first use (XPath, JSONPath, ajv, yaml: see
// src/arazzo/_on-demand.ts) stay lazy: they are bundled as modules that run when first required.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const engine = join(here, '..', '..', 'src', 'arazzo');
const outdir = join(here, 'dist');

await rm(outdir, { recursive: true, force: true });
execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(here, 'tsconfig.json')], { stdio: 'inherit' });

/** The engine's `requireCjs('pkg')` (createRequire: resolved at run time) becomes a `require` esbuild follows. */
const bundleOnDemand = {
  name: 'bundle-on-demand',
  setup(build) {
    build.onLoad({ filter: /_on-demand\.ts$/ }, async (args) => ({
      contents: (await readFile(args.path, 'utf8')).replace(/requireCjs\('([^.'][^']*)'\)/g, "require('$1')"),
      loader: 'ts',
    }));
  },
};

/**
 * One entry per export of package.json: `.` is src/arazzo/index.ts, `./name` src/arazzo/name.ts or
 * src/arazzo/name/index.ts (the doors the operator tool itself uses), `./kafka` the transport.
 */
const pkg = JSON.parse(await readFile(join(here, 'package.json'), 'utf8'));
const entryPoints = {};
for (const key of Object.keys(pkg.exports).filter((k) => k !== './package.json')) {
  const name = key === '.' ? 'index' : key.slice(2);
  entryPoints[name] = name === 'kafka' ? join(here, 'kafka-entry.ts')
    : name === 'index' ? join(engine, 'index.ts')
      : existsSync(join(engine, `${name}.ts`)) ? join(engine, `${name}.ts`) : join(engine, name, 'index.ts');
}
entryPoints.cli = join(engine, 'cli.ts');

const { build } = await import('esbuild');
await build({
  entryPoints,
  // kafka: the optional transport (src/kafka/messaging.ts); its client stays the user's to install.
  external: ['@platformatic/kafka'],
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  plugins: [bundleOnDemand],
  // The bundled CommonJS libraries require Node's own modules.
  banner: { js: "import { createRequire as __engineRequire } from 'node:module';\nconst require = __engineRequire(import.meta.url);" },
  legalComments: 'linked',
  logLevel: 'warning',
});
