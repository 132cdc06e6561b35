// Several offsetctl processes opening the same new state folder at once (a rewind and a `runs`
// in another terminal, or a fleet's workers): each must find the tables, whichever process
// created them. Before the migration re-read the schema version under the write lock, the
// second one failed with "table runs already exists".
// Real parts: a SQLite store file, child processes.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dir = mkdtempSync(join(tmpdir(), 'offsetctl-concurrent-open-'));
const child = join(dir, 'open.mjs');
// Every child waits for the same moment, then opens the store and lists its runs. It sleeps until
// just before it and spins only the last few milliseconds: six children spinning for the whole
// wait took ~30 CPU-seconds from the unit tier's other files on a 2-core machine.
writeFileSync(child, `import { openStore } from ${JSON.stringify(new URL('../index.js', import.meta.url).href)};
const [stateDir, at] = process.argv.slice(2);
await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(at) - Date.now() - 5)));
while (Date.now() < Number(at)) { /* start together */ }
try {
  const store = openStore(stateDir);
  await store.listRuns({});
  await store.close();
  process.stdout.write('ok');
} catch (err) {
  process.stdout.write(String(err.message));
}
`);

function openAll(stateDir: string, count: number): Promise<string[]> {
  const at = Date.now() + 1_500; // after every child has started (Node's start-up included)
  return Promise.all(Array.from({ length: count }, () => new Promise<string>((resolve) => {
    const p = spawn(process.execPath, [child, stateDir, String(at)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    p.on('close', () => resolve(out));
  })));
}

test('processes opening one new state folder at once all get a working store', async () => {
  for (let round = 0; round < 4; round++) {
    const results = await openAll(mkdtempSync(join(dir, 'state-')), 6);
    assert.deepEqual(results.filter((r) => r !== 'ok'), [], `round ${round + 1}`);
  }
});

test('a new store that another program holds locked is refused after the busy timeout, not retried for ever', { timeout: 60_000 }, async () => {
  const { openDatabase } = await import('./driver.js');
  const { openStore } = await import('../index.js');
  const stateDir = mkdtempSync(join(dir, 'locked-'));
  const holder = openDatabase(join(stateDir, 'offsetctl.db'));
  holder.pragma('locking_mode = EXCLUSIVE');
  holder.exec('BEGIN EXCLUSIVE');
  try {
    // Synchronous in this process: the bound is the open returning at all (the busy timeout is
    // 5 s; retrying the WAL switch with a 5 s wait inside each try never ended).
    assert.throws(() => openStore(stateDir), /cannot open the state store .*database is locked/);
  } finally {
    holder.exec('ROLLBACK');
    holder.close();
  }
});
