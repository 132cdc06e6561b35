import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { repoRoot } from './figure.js';
import { topFunctions, topPackages, type CpuProfile } from './profile.js';

// Three frames: a dependency, a project file and the idle bucket; samples weighted by timeDeltas.
const yamlUrl = pathToFileURL(join(repoRoot, 'node_modules', 'yaml', 'dist', 'parse.js')).href;
const ownUrl = pathToFileURL(join(repoRoot, 'dist', 'src', 'arazzo', 'runner', 'run-step.js')).href;
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: { functionName: 'parse', url: yamlUrl, lineNumber: 9 } },
    { id: 2, callFrame: { functionName: 'executeStep', url: ownUrl, lineNumber: 54 } },
    { id: 3, callFrame: { functionName: '(idle)', url: '', lineNumber: -1 } },
  ],
  startTime: 0,
  endTime: 10_000,
  samples: [1, 2, 2, 3, 1],
  timeDeltas: [1000, 2000, 2000, 4000, 1000],
};

test('self time is folded per package, per project file and per runtime bucket, largest first', () => {
  assert.deepEqual(
    topPackages(profile, 10).map((p) => [p.name, p.selfMs]),
    [
      ['dist/src/arazzo/runner/run-step.js', 4],
      ['(idle)', 4],
      ['yaml', 2],
    ],
  );
});

test('functions are named with their file and 1-based line, shares add up to one', () => {
  const lines = topFunctions(profile, 10);
  assert.equal(lines[0]?.name, 'executeStep dist/src/arazzo/runner/run-step.js:55');
  assert.equal(Math.round(lines.reduce((sum, l) => sum + l.share, 0) * 1000) / 1000, 1);
  assert.equal(topFunctions(profile, 1).length, 1);
});
