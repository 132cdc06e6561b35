// A clone of the repository must be complete: no tracked file may point at anything beside or
// above it (the project was started from a `shared/` folder that sits next to the repository
// only on the machine it was written on). CI also runs the whole suite in a fresh clone in a
// temporary folder (.ci/run), where nothing is beside the checkout.
// Real parts: child processes.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { repoRoot, seedsDir } from '../support/repo.js';

/** Files git tracks (or, outside a git checkout, every file but node_modules/dist). */
function projectFiles(): string[] {
  const git = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: repoRoot, encoding: 'utf8' });
  if (git.status === 0 && git.stdout.length > 0) return git.stdout.split('\0').filter(Boolean);
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (['node_modules', 'dist', '.git'].includes(e.name)) continue;
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(relative(repoRoot, p));
    }
  };
  walk(repoRoot);
  return out;
}

// A reference out of the repository: the sibling shared folder (as a relative path or path parts), or an absolute path into the
// machine's work folders. Recorded benchmark results name the folder they ran in: data, not a read.
const OUTSIDE = [/\.\.\/shared\b/, /'\.\.',\s*'shared'/, /(?<![\w.])\/work\/(?:shared|main|wt)\b/];
const RECORDS = new Set(['bench/results.json']);

test('no tracked file refers to anything outside the repository', () => {
  const offenders: string[] = [];
  for (const file of projectFiles()) {
    if (RECORDS.has(file) || file.startsWith('test/project/')) continue;
    const path = join(repoRoot, file);
    let text: string;
    try {
      if (statSync(path).size > 2_000_000) continue;
      text = readFileSync(path, 'utf8');
    } catch {
      continue; // deleted in the work tree
    }
    text.split('\n').forEach((line, i) => {
      if (OUTSIDE.some((re) => re.test(line))) offenders.push(`${file}:${i + 1}: ${line.trim().slice(0, 120)}`);
    });
  }
  assert.deepEqual(offenders, [], `files that read outside the repository:\n${offenders.join('\n')}`);
});

test('the seed workflows are part of the project, with a README saying why they are unmodified', () => {
  const readme = readFileSync(join(seedsDir, 'README.md'), 'utf8');
  assert.match(readme, /unmodified on purpose/);
  for (const name of ['rewind-connector-offsets.arazzo.yaml', 'reset-connector-offsets.arazzo.yaml']) {
    assert.match(readFileSync(join(seedsDir, name), 'utf8'), /^arazzo: 1\.0\.1/m, name);
  }
});
