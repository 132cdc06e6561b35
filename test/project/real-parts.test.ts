// Every test file says in its header comment which real parts it uses (issue 31): the sandbox's
// Kafka and Connect, a PostgreSQL, Chromium, a loopback server, a spawned CLI or the CLI
// in-process, or none. Checked over test/**/*.test.ts and src/**/*.test.ts, and shown failing on
// small broken examples. Real parts: the repository's files; nothing runs.
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../support/repo.js';

/** The comment a file opens with: its lines up to the first that is neither a comment nor blank. */
function headerComment(text: string): string {
  const header: string[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '' || /^\s*(\/\/|\/\*|\*)/.test(line)) header.push(line);
    else break;
  }
  return header.join('\n');
}

/** The test files whose header comment does not say "Real parts:". */
function missingRealParts(files: ReadonlyArray<{ path: string; text: string }>): string[] {
  return files.filter((f) => !headerComment(f.text).includes('Real parts:')).map((f) => f.path);
}

function testFiles(dir: string): string[] {
  const found: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) found.push(...testFiles(path));
    else if (e.name.endsWith('.test.ts')) found.push(path);
  }
  return found;
}

test('every test file names its real parts in its header comment', () => {
  const files = [...testFiles(join(repoRoot, 'test')), ...testFiles(join(repoRoot, 'src'))];
  assert.ok(files.length > 200, `found only ${files.length} test files`);
  const missing = missingRealParts(files.map((path) => ({ path: relative(repoRoot, path), text: readFileSync(path, 'utf8') })));
  assert.deepEqual(missing, [], 'add a line "// Real parts: …" to the header comment of each');
});

test('the check fails on a file without the line, with it only in the body, or with no header at all', () => {
  const good = { path: 'good.test.ts', text: '// What this shows.\n// Real parts: none; the CLI in-process.\nimport { test } from \'node:test\';\n' };
  const block = { path: 'block.test.ts', text: '/*\n * Real parts: a loopback HTTP server.\n */\nimport { test } from \'node:test\';\n' };
  const without = { path: 'without.test.ts', text: '// What this shows.\nimport { test } from \'node:test\';\n' };
  const inBody = { path: 'body.test.ts', text: '// What this shows.\nimport { test } from \'node:test\';\n// Real parts: too late.\n' };
  const bare = { path: 'bare.test.ts', text: 'import { test } from \'node:test\';\n' };
  assert.deepEqual(missingRealParts([good, block, without, inBody, bare]), ['without.test.ts', 'body.test.ts', 'bare.test.ts']);
});
