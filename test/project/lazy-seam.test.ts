// Start-up by design (issue 31): what loads late goes through a lazy-loading seam, not through
// import() calls scattered over the sources. A verb's module is named in src/cli/verbs.ts; every
// other module loaded on demand has one named door in a seam file (src/cli/load.ts for the CLI,
// src/ops/load.ts, src/store/load.ts, src/web/load.ts for the layers), and library code never looks
// for the files a build packs beside the bundle (the CLI's build entry, src/cli/bundle-entry.ts,
// hands them in). A registration module (options, help) reaches its actions through one door per
// action module, and an action module imports the CLI statically. Each rule is shown failing on a
// small broken example.
// Real parts: the repository's files, parsed with the TypeScript compiler; nothing runs.
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { repoRoot } from '../support/repo.js';

/** The seam: the only files whose import() calls are start-up design. */
const SEAM = ['src/cli/verbs.ts', 'src/cli/load.ts', 'src/ops/load.ts', 'src/store/load.ts', 'src/web/load.ts', 'src/kafka/load.ts'];

/** import() of a module the user names on the command line (the engine's --transport): no start-up tuning. */
const USER_MODULES = ['src/arazzo/cli.ts'];


/** Library folders: they are handed what a build packs, never look for it. */
const LIBRARIES = ['src/arazzo', 'src/http', 'src/store', 'src/ops', 'src/kafka', 'src/connect-lint', 'src/present'];

interface Source {
  path: string;
  text: string;
}

const parse = (f: Source): ts.SourceFile => ts.createSourceFile(f.path, f.text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
const lineOf = (sf: ts.SourceFile, node: ts.Node): number => sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;

function visit(sf: ts.SourceFile, each: (node: ts.Node) => void): void {
  const walk = (node: ts.Node): void => {
    each(node);
    ts.forEachChild(node, walk);
  };
  walk(sf);
}

/** Every import() call that loads code (`import('x').T` and `typeof import('x')` are types: no call). */
function importCalls(f: Source): string[] {
  const sf = parse(f);
  const found: string[] = [];
  visit(sf, (node) => {
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) found.push(`${f.path}:${lineOf(sf, node)}`);
  });
  return found;
}

/** import() calls outside the seam (and the allowed exceptions), as file:line. */
function scatteredImports(files: readonly Source[], allowed: readonly string[]): string[] {
  return files.filter((f) => !allowed.includes(f.path)).flatMap(importCalls);
}

/** A seam file's static imports that load code: a loop through the seam would then order evaluation. */
function seamStaticImports(files: readonly Source[]): string[] {
  return files.flatMap((f) => {
    const sf = parse(f);
    const loadsCode = (s: ts.Statement): boolean =>
      (ts.isImportDeclaration(s) && !s.importClause?.isTypeOnly) || (ts.isExportDeclaration(s) && s.moduleSpecifier !== undefined && !s.isTypeOnly);
    return sf.statements.filter(loadsCode).map((s) => `${f.path}:${lineOf(sf, s)}`);
  });
}

/** String literals naming a file a build packs beside the bundle (`./ajv-bundle.cjs`, `dist/bundle/...`). */
function buildArtefactLookups(files: readonly Source[]): string[] {
  return files.flatMap((f) => {
    const sf = parse(f);
    const found: string[] = [];
    visit(sf, (node) => {
      if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && /\.cjs$|(^|[/-])bundle([/.-]|$)/.test(node.text)) {
        found.push(`${f.path}:${lineOf(sf, node)}: ${node.text}`);
      }
    });
    return found;
  });
}

/** The CLI's doors (src/cli/load.ts): name → the module it loads, as written (`./commands/x.js`, `../ops/index.js`). */
function doorsOf(load: Source): Map<string, string> {
  const doors = new Map<string, string>();
  for (const m of load.text.matchAll(/^export const (\w+) = \(\) => import\('([^']+)'\);$/gm)) doors.set(m[1]!, m[2]!);
  return doors;
}

/** The registration modules: the modules src/cli/verbs.ts maps verbs to, as source paths. */
function registrationModules(verbs: Source): string[] {
  return [...verbs.text.matchAll(/import\('\.\/(commands\/[\w-]+)\.js'\)/g)].map((m) => `src/cli/${m[1]}.ts`);
}

/**
 * Door calls in the wrong place, as file:line: a registration module or an action module (a door's
 * target in src/cli/commands) calls only an action module's door or a library's, never a CLI
 * helper's (an action module imports the helpers it needs statically).
 */
function misplacedDoorCalls(files: readonly Source[], load: Source, verbs: Source): string[] {
  const doors = doorsOf(load);
  const registration = new Set(registrationModules(verbs));
  const actions = new Set([...doors.values()].filter((t) => t.startsWith('./commands/')).map((t) => `src/cli/${t.slice(2, -3)}.ts`));
  const isAction = (target: string): boolean => target.startsWith('./commands/') && !registration.has(`src/cli/${target.slice(2, -3)}.ts`);
  const found: string[] = [];
  for (const f of files) {
    if (!registration.has(f.path) && !actions.has(f.path)) continue;
    const sf = parse(f);
    visit(sf, (node) => {
      if (!ts.isCallExpression(node) || !ts.isPropertyAccessExpression(node.expression)) return;
      const { expression: on, name } = node.expression;
      if (!ts.isIdentifier(on) || on.text !== 'load') return;
      const target = doors.get(name.text);
      if (target === undefined) return;
      const cli = target.startsWith('./');
      const wrong = cli && !isAction(target);
      if (wrong) found.push(`${f.path}:${lineOf(sf, node)}: load.${name.text}()`);
    });
  }
  return found;
}

function sources(dir: string): Source[] {
  const out: Source[] = [];
  for (const e of readdirSync(join(repoRoot, dir), { withFileTypes: true })) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) {
      if (path !== 'src/web/assets') out.push(...sources(path));
    } else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')) {
      out.push({ path, text: readFileSync(join(repoRoot, path), 'utf8') });
    }
  }
  return out;
}

test('import() appears only in the lazy-loading seam (src/cli/verbs.ts and the load.ts doors)', () => {
  const files = sources('src');
  assert.ok(files.length > 300, `found only ${files.length} source files`);
  for (const seam of [...SEAM, ...USER_MODULES]) assert.ok(files.some((f) => f.path === seam), `${seam} is gone: take it off the list`);
  const scattered = scatteredImports(files, [...SEAM, ...USER_MODULES]);
  assert.deepEqual(scattered, [], 'load it through a named door in the layer\'s load.ts (src/cli/load.ts in the CLI), or import it statically');
});

test('registration and action modules call only action modules\' and libraries\' doors (CLI helpers are imported statically)', () => {
  const read = (path: string): Source => ({ path, text: readFileSync(join(repoRoot, path), 'utf8') });
  const load = read('src/cli/load.ts');
  const verbs = read('src/cli/verbs.ts');
  assert.ok(registrationModules(verbs).length >= 15, 'verbs.ts names the registration modules');
  const fix = 'move the code that needs it into the action module (load.<x>Actions()) and import it there statically';
  assert.deepEqual(misplacedDoorCalls(sources('src/cli'), load, verbs), [], fix);
});

test('a seam file imports nothing that loads code (its edges are import() doors only)', () => {
  const seams = SEAM.map((path) => ({ path, text: readFileSync(join(repoRoot, path), 'utf8') }));
  assert.deepEqual(seamStaticImports(seams), []);
});

test('no library code looks for a build\'s files beside the bundle', () => {
  const files = LIBRARIES.flatMap(sources);
  assert.ok(files.length > 150, `found only ${files.length} library files`);
  const fix = 'take a provider instead (src/arazzo/bundled.ts, src/http/bundled.ts, src/store/bundled.ts); src/cli/bundle-entry.ts hands it in';
  assert.deepEqual(buildArtefactLookups(files), [], fix);
});

test('the checks fail on small broken examples and pass the right shapes', () => {
  const scattered: Source = {
    path: 'src/cli/commands/x.ts',
    text: "import type { A } from './a.js';\nexport async function run(): Promise<void> {\n  const { ops } = await import('../../ops/index.js');\n}\n",
  };
  const typesOnly: Source = {
    path: 'src/cli/commands/y.ts',
    text:
      "type Ops = typeof import('../../ops/index.js');\nlet s: import('../../store/index.js').Store | undefined;\n" +
      'export const z = (await load.ops()).x;\n',
  };
  const seam: Source = { path: 'src/cli/load.ts', text: "export const ops = () => import('../ops/index.js');\n" };
  assert.deepEqual(scatteredImports([scattered, typesOnly, seam], ['src/cli/load.ts']), ['src/cli/commands/x.ts:3']);
  assert.deepEqual(scatteredImports([seam], []), ['src/cli/load.ts:1']);

  const leakySeam: Source = {
    path: 'src/cli/load.ts',
    text: "import type { Command } from 'commander';\nimport { join } from 'node:path';\nexport * from './x.js';\n",
  };
  assert.deepEqual(seamStaticImports([leakySeam, seam]), ['src/cli/load.ts:2', 'src/cli/load.ts:3']);

  // A registration module calling a CLI helper's door, an action module calling a door into the CLI.
  const doorLoad: Source = {
    path: 'src/cli/load.ts',
    text: "export const xActions = () => import('./commands/x-actions.js');\nexport const confirm = () => import('./confirm.js');\n" +
      "export const web = () => import('../web/index.js');\n",
  };
  const doorVerbs: Source = { path: 'src/cli/verbs.ts', text: "const MODULES = { x: () => import('./commands/x.js') };\n" };
  const registration: Source = {
    path: 'src/cli/commands/x.ts',
    text: "export function register(): void {\n  void load.xActions();\n  void load.web();\n  void load.confirm();\n}\n",
  };
  const action: Source = { path: 'src/cli/commands/x-actions.ts', text: "export async function run(): Promise<void> {\n  await load.web();\n  await load.confirm();\n}\n" };
  const helper: Source = { path: 'src/cli/connection.ts', text: "export const c = async () => load.confirm();\n" };
  assert.deepEqual(misplacedDoorCalls([registration, action, helper], doorLoad, doorVerbs), [
    'src/cli/commands/x.ts:4: load.confirm()', 'src/cli/commands/x-actions.ts:3: load.confirm()',
  ]);

  const lookup: Source = {
    path: 'src/http/client.ts',
    text:
      "// the CLI's build bundles undici into one file (a comment may say so)\nconst u = requireCjs('./undici-bundle.cjs');\n" +
      "const p = join(root, 'dist/bundle/cli');\nconst ok = 'bundled';\n",
  };
  assert.deepEqual(buildArtefactLookups([lookup]), ['src/http/client.ts:2: ./undici-bundle.cjs', 'src/http/client.ts:3: dist/bundle/cli']);
});
