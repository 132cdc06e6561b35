// Real parts: none (the code under test, in this process).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { auditDetail } from './audit.js';
import { renderTable } from './table.js';

test('an audit entry is one line in the text table, whatever its message holds (issue 30, point 8)', () => {
  const entry = {
    id: 'audit-1', at: '2026-12-04T06:00:00.000Z', actor: { user: 'ops@vm', via: 'cli' as const }, action: 'import', outcome: 'refused' as const,
    message: '[E_PREFLIGHT] the import to http://x is refused before anything was created (2 of 2 connector(s)):\n  a: taken\n  b: taken\nNothing was changed.',
  };
  const detail = auditDetail(entry);
  assert.doesNotMatch(detail, /\n/);
  assert.match(detail, /\(2 of 2 connector\(s\)\): a: taken b: taken/);
  const table = renderTable(['ACTION', 'DETAIL'], [[entry.action, detail], ['rewind', 'x']]);
  assert.equal(table.split('\n').length, 3, table);
});
