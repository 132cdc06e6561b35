// Real parts: a SQLite store file.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../store/index.js';
import type { Plan } from '../plan/index.js';
import { applyPlan } from './apply.js';
import { branchHead } from './iceberg-tables.js';

test('a plan whose Iceberg tables cannot be set back is refused before anything runs (exit 2, no run, no request)', async () => {
  const store = openStore(mkdtempSync(join(tmpdir(), 'offsetctl-iceberg-')));
  let requests = 0;
  const ctx = { url: 'http://127.0.0.1:1', http: { send: async () => { requests++; throw new Error('no request expected'); } }, store };
  const plan = { operation: 'rewind', clusterUrl: ctx.url, nothingToChange: false, warnings: [], profile: { profile: 'iceberg-sink', facts: [],
    warnings: [], iceberg: { catalogUri: '', base: '', steps: [], heads: [], refusal: 'ice writes through a jdbc catalog' } } } as unknown as Plan;
  await assert.rejects(applyPlan(ctx, plan),
    (err: unknown) => (err as { code?: string }).code === 'E_PREFLIGHT' && /jdbc catalog; nothing was changed/.test((err as Error).message));
  assert.equal(requests, 0);
  assert.deepEqual(await store.listRuns({}), []);
  await store.close();
});

test('the branch head is read exactly from a loadTable answer (refs first, current-snapshot-id for main)', () => {
  const text = '{"metadata":{"current-snapshot-id":1820595303036193084,"refs":{"main":{"snapshot-id":1820595303036193084,"type":"branch"},"green":{"type":"branch","snapshot-id":9007199254740993}}}}';
  assert.equal(branchHead(text, 'main'), '1820595303036193084');
  assert.equal(branchHead(text, 'green'), '9007199254740993');
  assert.equal(branchHead('{"metadata":{"current-snapshot-id":42}}', 'main'), '42');
});
