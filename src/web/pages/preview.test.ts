// Real parts: none (the code under test, in this process).
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Plan } from '../ops-bridge.js';
import { previewPage } from './preview.js';

test('the preview shows what the connector\'s profile read, escaped, above its warnings', async () => {
  const plan = {
    operation: 'rewind', runOperation: 'rewind', connector: 'pg-src', connectorType: 'source', clusterUrl: 'http://c', clusterKey: 'kafka:x',
    stateBefore: 'RUNNING', tasks: [], stateAfter: 'RUNNING', currentOffsets: [], targetOffsets: [],
    diff: { entries: [], counts: { unchanged: 0, changed: 0, added: 0, removed: 0 } }, warnings: ['a warning'], nothingToChange: false, forwardTargets: [],
    chunkSize: 10000, workflow: { kind: 'rewind', file: 'f', workflowId: 'w' }, inputs: {},
    profile: { profile: 'debezium-postgres', facts: ['slot dbz: restart_lsn 0/196E338 (26665784), <b>'], warnings: [] },
  } as unknown as Plan;
  const page = String(await previewPage(plan, 'p1', 'csrf', { user: 'u', csrf: 'csrf' } as never));
  assert.match(page, /<ul class="profile-facts"[^>]*><li>slot dbz: restart_lsn 0\/196E338 \(26665784\), &lt;b&gt;<\/li><\/ul>/);
  assert.ok(page.indexOf('profile-facts') < page.indexOf('warning: a warning'));
});
