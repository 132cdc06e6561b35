// Real parts: a SQLite store file.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '../../store/index.js';
import { takeoverLine } from './takeover.js';

test('the takeover line names the holder once, its parentheses balanced (issue 30, point 10)', async () => {
  const store = openSqliteStore(mkdtempSync(join(tmpdir(), 'offsetctl-takeover-')));
  try {
    const run = await store.beginRun({ clusterUrl: 'http://127.0.0.1:8083', connector: 'orders', operation: 'rewind', workflowFile: 'w', workflowId: 'w', inputs: {} });
    const line = await takeoverLine(store, run.id, 'resume');
    const holder = `${run.actor.user}@${run.actor.host}`;
    assert.equal(line.split(holder).length - 1, 1, `the holder once: ${line}`);
    assert.equal((line.match(/\(/g) ?? []).length, (line.match(/\)/g) ?? []).length, `balanced: ${line}`);
    assert.match(line, new RegExp(`^taking over run ${run.id} of ${holder} \\(.*pid ${process.pid}.*\\); rewind of orders since .*: finishing it from its last step$`));
  } finally {
    await store.close();
  }
});
