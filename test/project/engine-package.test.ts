// The engine as its own package (@offsetctl/arazzo, packages/arazzo): it imports nothing outside
// src/arazzo but Node's modules and the packages its package.json names (checked over the
// sources, and shown failing on a small broken engine), the operator tool enters it only through
// files the package exports (shown failing on a side entry), and `npm pack` of it installs into an
// empty folder and runs from `/`: its CLI validates and runs the shipped example against a
// loopback server, and its typed API compiles and runs in a consumer. Real parts: npm, tsc, a
// local HTTP server; the package bundles its libraries, so npm installs it offline.
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { packAndInstall, packageDir } from '../support/arazzo-package.js';
import { repoRoot } from '../support/repo.js';

/** Every import of the engine's sources (tests aside) that leaves src/arazzo or names an undeclared package. */
function strayImports(engineDir: string, declared: ReadonlySet<string>): string[] {
  const stray: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')) {
        const text = readFileSync(path, 'utf8');
        // A library required at run time is bundled only through _on-demand.ts (see packages/arazzo/build.mjs).
        if (/\bcreateRequire\b/.test(text) && e.name !== '_on-demand.ts') stray.push(`${relative(engineDir, path)} → createRequire`);
        // static imports, re-exports, import() and import('x') types, createRequire's require('x')
        for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\brequireCjs\(\s*|^import\s+)'([^' ]+)'/gm)) {
          const spec = m[1] as string;
          const where = `${relative(engineDir, path)} → ${spec}`;
          if (spec.startsWith('.')) {
            if (relative(engineDir, resolve(dirname(path), spec)).startsWith('..')) stray.push(where);
          } else if (!spec.startsWith('node:')) {
            const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : (spec.split('/')[0] as string);
            if (!declared.has(name)) stray.push(where);
          }
        }
      }
    }
  };
  walk(engineDir);
  return stray.sort();
}

/**
 * The libraries the package's build bundles: its devDependencies, less the build tools and the
 * optional Kafka transport's client (a peer the user installs; the engine itself must not need it).
 */
function declaredDependencies(): Set<string> {
  const pkg = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { devDependencies?: Record<string, string> };
  const notBundled = new Set(['esbuild', 'typescript', ...Object.keys((pkg as { peerDependencies?: object }).peerDependencies ?? {})]);
  return new Set(Object.keys(pkg.devDependencies ?? {}).filter((name) => !notBundled.has(name)));
}

test('the engine imports nothing outside src/arazzo but node: modules and its package\'s dependencies', () => {
  assert.deepEqual(strayImports(join(repoRoot, 'src', 'arazzo'), declaredDependencies()), []);
});

test('the check catches engine files reaching into src/http, importing an undeclared package or the Kafka client, requiring past the bundle', () => {
  const dir = mkdtempSync(join(tmpdir(), 'arazzo-stray-'));
  try {
    mkdirSync(join(dir, 'src', 'arazzo', 'runner'), { recursive: true });
    const engine = join(dir, 'src', 'arazzo');
    writeFileSync(join(engine, 'runner', 'send.ts'), "import type { HttpSender } from '../../http/client.js';\nimport { x } from '../errors.js';\n");
    writeFileSync(join(engine, 'errors.ts'), "import { Agent } from 'undici';\nimport { readFile } from 'node:fs/promises';\nimport { parse } from 'yaml';\n");
    writeFileSync(join(engine, 'messaging.ts'), "export type K = typeof import('@platformatic/kafka');\n");
    writeFileSync(join(engine, 'runner', 'schema.ts'), "import { createRequire } from 'node:module';\nexport const ajv = createRequire(import.meta.url)('ajv');\n");
    assert.deepEqual(strayImports(join(dir, 'src', 'arazzo'), declaredDependencies()), [
      'errors.ts → undici', 'messaging.ts → @platformatic/kafka', 'runner/schema.ts → createRequire', 'runner/send.ts → ../../http/client.js',
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** The engine's files that are package entry points (package.json exports: `.`, `./name`). */
function packageEntries(engineDir: string): Set<string> {
  const pkg = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { exports: Record<string, unknown> };
  const entries = new Set<string>();
  for (const key of Object.keys(pkg.exports)) {
    if (key === '.') entries.add('index.ts');
    else if (key !== './package.json' && key !== './kafka') {
      const name = key.slice(2);
      entries.add(existsSync(join(engineDir, `${name}.ts`)) ? `${name}.ts` : `${name}/index.ts`);
    }
  }
  return entries;
}

/** Imports from the rest of `srcDir` into its arazzo/ folder that name a file no package export is built from. */
function sideEntries(srcDir: string, entries: ReadonlySet<string>): string[] {
  const engineDir = join(srcDir, 'arazzo');
  const side: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory()) {
        if (path !== engineDir) walk(path);
      } else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')) {
        for (const m of readFileSync(path, 'utf8').matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*)'(\.[^' ]+)'/g)) {
          const target = relative(engineDir, resolve(dirname(path), m[1] as string)).replace(/\.js$/, '.ts');
          if (!target.startsWith('..') && !entries.has(target)) side.push(`${relative(srcDir, path)} → arazzo/${target}`);
        }
      }
    }
  };
  walk(srcDir);
  return side.sort();
}

test('the operator tool enters the engine only where a user of @offsetctl/arazzo can: through the package\'s exports', () => {
  const src = join(repoRoot, 'src');
  assert.deepEqual(sideEntries(src, packageEntries(join(src, 'arazzo'))), []);
});

test('the check catches the operator tool importing an engine file that is no package export', () => {
  const dir = mkdtempSync(join(tmpdir(), 'arazzo-side-'));
  try {
    mkdirSync(join(dir, 'arazzo', 'runner'), { recursive: true });
    mkdirSync(join(dir, 'ops'), { recursive: true });
    writeFileSync(join(dir, 'ops', 'run.ts'), "import { runWorkflow } from '../arazzo/index.js';\nimport { x } from '../arazzo/runner/run-workflow.js';\n");
    writeFileSync(join(dir, 'ops', 'lazy.ts'), "export const load = () => import('../arazzo/runner/index.js');\n");
    assert.deepEqual(sideEntries(dir, packageEntries(join(repoRoot, 'src', 'arazzo'))), ['ops/run.ts → arazzo/runner/run-workflow.ts']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('npm pack of @offsetctl/arazzo installs into an empty folder and runs from /: CLI and typed API', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'arazzo-pack-'));
  const server = createServer((req, res) => {
    const name = decodeURIComponent(/^\/greetings\/([^/?]+)$/.exec(req.url ?? '')?.[1] ?? '');
    res.writeHead(name ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(name ? { text: `hello ${name}` } : { error: 'no such greeting' }));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const { app, bin, files: paths } = packAndInstall(dir);
    const expected = ['dist/index.js', 'dist/types/src/arazzo/index.d.ts', 'dist/cli.js', 'dist/kafka.js', 'bin/arazzo.js', 'examples/hello.arazzo.yaml', 'README.md'];
    for (const p of expected) {
      assert.ok(paths.includes(p), `${p} is packed`);
    }
    assert.deepEqual(paths.filter((p) => /\.test\.|\.ts$/.test(p) && !p.endsWith('.d.ts')), [], 'no tests or TypeScript sources in the package');
    const example = join(app, 'node_modules', '@offsetctl', 'arazzo', 'examples', 'hello.arazzo.yaml');
    const validated = spawnSync(bin, ['validate', example], { cwd: '/', encoding: 'utf8' });
    assert.equal(validated.status, 0, validated.stderr);
    assert.match(validated.stdout, /hello\.arazzo\.yaml: valid/);

    const inputs = join(dir, 'inputs.json');
    writeFileSync(inputs, '{"name": "ada"}');
    // spawnSync would block the loopback server: run the CLI asynchronously.
    const ran = await new Promise<{ status: number | null; stdout: string; stderr: string }>((done) => {
      const child = spawn(bin, ['run', example, '--inputs', inputs, '--server', url, '--json'], { cwd: '/' });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d));
      child.stderr.on('data', (d: Buffer) => (stderr += d));
      child.on('close', (status) => done({ status, stdout, stderr }));
    });
    assert.equal(ran.status, 0, ran.stderr);
    const result = JSON.parse(ran.stdout) as { status: string; outputs: { text?: string } };
    assert.equal(result.status, 'passed');
    assert.equal(result.outputs.text, 'hello ada');

    // A refusal: bad inputs, exit 2, nothing sent.
    const refused = spawnSync(bin, ['run', example, '--server', url], { cwd: '/', encoding: 'utf8' });
    assert.equal(refused.status, 2);
    assert.match(refused.stderr, /E_INPUTS.*input "name": is required/);

    // The typed API, as a user writes it: compiled against the package's .d.ts, then run.
    writeFileSync(join(app, 'use.ts'), [
      "import { validate, run, type RunEvent } from '@offsetctl/arazzo';",
      'const file = process.argv[2] as string;',
      'const { valid } = await validate(file);',
      'const seen: RunEvent[\'type\'][] = [];',
      "const result = await run(file, { inputs: { name: 'grace' }, servers: { all: process.argv[3] as string }, onEvent: (e) => { seen.push(e.type); } });",
      'console.log(JSON.stringify({ valid, status: result.status, text: result.outputs.text, seen }));',
      '',
    ].join('\n'));
    writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({
      compilerOptions: {
        module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true, skipLibCheck: true,
        types: ['node'], typeRoots: [join(repoRoot, 'node_modules', '@types')],
      },
      files: ['use.ts'],
    }));
    const tsc = spawnSync(process.execPath, [join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', app], { encoding: 'utf8' });
    assert.equal(tsc.status, 0, `the consumer does not compile against the package's types:\n${tsc.stdout}${tsc.stderr}`);
    const used = await new Promise<string>((done, fail) => {
      const child = spawn(process.execPath, [join(app, 'use.js'), example, url], { cwd: '/' });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d));
      child.on('close', (status) => (status === 0 ? done(out) : fail(new Error(`use.js exited ${status}`))));
    });
    const api = JSON.parse(used) as { valid: boolean; status: string; text: string; seen: string[] };
    assert.deepEqual({ valid: api.valid, status: api.status, text: api.text }, { valid: true, status: 'passed', text: 'hello grace' });
    assert.ok(api.seen.includes('request.sent') && api.seen.at(-1) === 'workflow.finished', api.seen.join(', '));
  } finally {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
