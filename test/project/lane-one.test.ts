// Every integration file that uses what only lane 1 has (the second or the other Connect cluster,
// through test/support's secondCluster, twoClusters, otherCluster or requireLaneOne) is pinned to
// lane 1 by scripts/test.mjs's LANE_ONE, or runs in the plugins' lane (its own sandbox). Without
// it the shared queue hands the file to any lane and requireLaneOne refuses it there (lock-keys
// did so in a CI run). Uses: the repository's files only.
// Real parts: none (the code under test, in this process).
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../support/repo.js';

const USES_LANE_ONE = /\b(secondCluster|twoClusters|otherCluster|requireLaneOne)\(/;

/** LANE_ONE's and PLUGIN_FILES' patterns, read from scripts/test.mjs's source. */
function runnerPatterns(source: string): { laneOne: RegExp[]; plugins: RegExp } {
  const block = /const LANE_ONE = \[([\s\S]*?)\n\];/.exec(source)?.[1] ?? '';
  const laneOne = [...block.matchAll(/re: \/(.+?)\/,/g)].map((m) => new RegExp(m[1]!));
  const plugins = /const PLUGIN_FILES = \/(.+?)\/;/.exec(source)?.[1];
  assert.ok(laneOne.length > 0 && plugins, 'scripts/test.mjs still has LANE_ONE and PLUGIN_FILES');
  return { laneOne, plugins: new RegExp(plugins) };
}

/** The files (by base name) whose source uses lane 1's clusters but that no pattern keeps there. */
function unpinned(files: Record<string, string>, p: { laneOne: RegExp[]; plugins: RegExp }): string[] {
  return Object.entries(files)
    .filter(([name, text]) => USES_LANE_ONE.test(text) && !p.laneOne.some((re) => re.test(name)) && !p.plugins.test(name))
    .map(([name]) => name);
}

const patterns = runnerPatterns(readFileSync(join(repoRoot, 'scripts', 'test.mjs'), 'utf8'));

test('integration files that use the second or other Connect cluster are kept in lane 1 (or the plugins\' lane)', () => {
  const dir = join(repoRoot, 'test', 'integration');
  const files = Object.fromEntries(readdirSync(dir).filter((f) => f.endsWith('.test.ts')).map((f) => [f.replace(/\.test\.ts$/, ''), readFileSync(join(dir, f), 'utf8')]));
  assert.deepEqual(unpinned(files, patterns), []);
});

test('the check names a file that uses the second cluster outside LANE_ONE', () => {
  const broken = {
    'lock-keys-copy': "const { first, second } = await twoClusters();",
    'ops-reset': "await connectFixture();",
    'move-x': "await secondCluster();",
    'profiles-y': "await secondCluster();",
  };
  assert.deepEqual(unpinned(broken, patterns), ['lock-keys-copy']);
});
