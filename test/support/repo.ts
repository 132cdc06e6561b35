// Where things are, from compiled tests in dist/test/...: the repository root (the folder whose
// package.json is named offsetctl). Everything a test reads is inside the repository (the seeds
// are in examples/seeds/), so a clean clone anywhere passes.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRepoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'offsetctl') return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('test support: no package.json named offsetctl above the compiled test');
    dir = parent;
  }
}

export const repoRoot = findRepoRoot();
export const cliPath = join(repoRoot, 'bin', 'offsetctl');
export const openapiPath = join(repoRoot, 'openapi', 'kafka-connect.yaml');
export const workflowsDir = join(repoRoot, 'workflows');
export const seedsDir = join(repoRoot, 'examples', 'seeds');
