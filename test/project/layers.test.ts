// The house rules (.dependency-cruiser.cjs; docs/design.md, "The import-graph rules") over the
// real import graph of src/: no import circle, no upward or sideways import between layers or
// ops' rooms, no face importing another face, no folder entered other than through its door. The
// second test runs the same rules over a small house that breaks each of them once, so a rule
// that stopped matching would be noticed.
// Real parts: none (the code under test, in this process).
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../support/repo.js';

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
  cycle?: Array<{ name: string }>;
}

/** The rules' violations in `dir` (its src/ folder), one line each. */
async function houseViolations(dir: string): Promise<string[]> {
  const { cruise } = await import('dependency-cruiser');
  const { default: extractDepcruiseConfig } = await import('dependency-cruiser/config-utl/extract-depcruise-config');
  const { default: extractTSConfig } = await import('dependency-cruiser/config-utl/extract-ts-config');
  const config = await extractDepcruiseConfig(join(repoRoot, '.dependency-cruiser.cjs'));
  const tsConfig = join(dir, 'tsconfig.json');
  const result = await cruise(['src'], {
    ...config.options,
    baseDir: dir,
    tsConfig: { fileName: tsConfig },
    validate: true,
    ruleSet: { forbidden: config.forbidden ?? [] },
  }, undefined, { tsConfig: extractTSConfig(tsConfig) });
  if (typeof result.output === 'string') throw new Error('dependency-cruiser returned text, not a result');
  const violations = result.output.summary.violations as unknown as Violation[];
  return violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}${v.cycle ? ` (circle: ${v.cycle.map((c) => c.name).join(' → ')})` : ''}`).sort();
}

test('src/ keeps the house rules: no circle, no upward import, no face importing a face, every room entered through its door', async () => {
  const violations = await houseViolations(repoRoot);
  assert.deepEqual(violations, [], `import-graph rules broken (see .dependency-cruiser.cjs and docs/design.md):\n${violations.join('\n')}`);
});

test('the rules catch a circle, an upward import, a face importing a face, a side entry into a room, and the engine reaching out of itself', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'offsetctl-house-'));
  const files: Record<string, string> = {
    'package.json': '{"type": "module"}\n',
    'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true }, include: ['src'] }),
    // A circle inside one layer.
    'src/store/a.ts': "import { b } from './b.js';\nexport const a = (): number => b() + 1;\n",
    'src/store/b.ts': "import { a } from './a.js';\nexport const b = (): number => (a as unknown as number) ? 1 : 0;\n",
    // An upward import: the store reaching into ops.
    'src/store/up.ts': "import { r } from '../ops/index.js';\nexport const up = r;\n",
    'src/ops/index.ts': "export { r } from './run/index.js';\nexport { p } from './plan/index.js';\n",
    'src/ops/run/index.ts': "export { r } from './r.js';\n",
    'src/ops/run/r.ts': 'export const r = 1;\n',
    'src/ops/plan/index.ts': "export { p } from './p.js';\n",
    // A room importing a room above it (plan is below run).
    'src/ops/plan/p.ts': "import { r } from '../run/index.js';\nexport const p = r;\n",
    // A face importing the other face, and a side entry into a room of ops.
    'src/web/w.ts': "import { c } from '../cli/c.js';\nexport const w = c;\n",
    'src/cli/c.ts': "import { r } from '../ops/run/r.js';\nexport const c = r;\n",
    // A face applying through the unguarded door (ops/run) instead of ops/audit; its types are fine.
    'src/cli/apply.ts': "import { r } from '../ops/run/index.js';\nimport type { R } from '../ops/run/types.js';\nexport const a = r;\nexport type A = R;\n",
    'src/ops/run/types.ts': 'export type R = number;\n',
    // The engine reaching out of itself (into src/http), and one of its rooms into another's side.
    'src/http/h.ts': 'export const h = 1;\n',
    'src/arazzo/index.ts': "export { e } from './runner/index.js';\n",
    'src/arazzo/runner/index.ts': "export { e } from './e.js';\n",
    'src/arazzo/runner/e.ts': "import { h } from '../../http/h.js';\nimport { d } from '../document/d.js';\nexport const e = h + d;\n",
    'src/arazzo/document/index.ts': "export { d } from './d.js';\n",
    'src/arazzo/document/d.ts': 'export const d = 1;\n',
  };
  try {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    const violations = await houseViolations(dir);
    for (const broken of ['no-circle: src/store/a.ts → src/store/b.ts', 'layer:store: src/store/up.ts → src/ops/index.ts', 'room:ops/plan: src/ops/plan/p.ts → src/ops/run/index.ts',
      'face:web: src/web/w.ts → src/cli/c.ts', 'door:src/ops/run: src/cli/c.ts → src/ops/run/r.ts', 'guard:cli: src/cli/apply.ts → src/ops/run/index.ts',
      'layer:arazzo: src/arazzo/runner/e.ts → src/http/h.ts', 'door:src/arazzo/document: src/arazzo/runner/e.ts → src/arazzo/document/d.ts']) {
      assert.ok(violations.some((v) => v.startsWith(broken)), `expected ${broken}; got:\n${violations.join('\n')}`);
    }
    assert.ok(!violations.some((v) => v.startsWith('guard:cli: src/cli/apply.ts → src/ops/run/types.ts')), 'a type-only import of the run room is allowed');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
