// Real parts: none (the code under test, in this process).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { selectConnectors } from './batch-select.js';

const existing = ['orders-sink', 'orders-source', 'mm2-a', 'mm2-b', 'audit'];

test('a selector picks the matching names in name order', () => {
  assert.deepEqual(selectConnectors(existing, { selector: '^mm2-' }), ['mm2-a', 'mm2-b']);
  assert.deepEqual(selectConnectors(existing, { selector: 'orders' }), ['orders-sink', 'orders-source']);
});

test('--all picks every connector; names keep their order', () => {
  assert.deepEqual(selectConnectors(existing, { all: true }), ['audit', 'mm2-a', 'mm2-b', 'orders-sink', 'orders-source']);
  assert.deepEqual(selectConnectors(existing, { names: ['mm2-b', 'audit'] }), ['mm2-b', 'audit']);
});

test('a selector that matches nothing is a refusal naming the regex and some existing names', () => {
  assert.throws(() => selectConnectors(existing, { selector: '^nope' }), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'E_PREFLIGHT');
    assert.match(err.message, /--selector "\^nope" matches no connector/);
    assert.match(err.message, /Existing connectors \(5\): audit, mm2-a, mm2-b, orders-sink, orders-source/);
    return true;
  });
});

test('bad selections are refused: none, several ways, invalid regex, unknown or repeated names', () => {
  const code = (fn: () => unknown): string | undefined => {
    try { fn(); } catch (err) { return (err as { code?: string }).code; }
    return undefined;
  };
  assert.equal(code(() => selectConnectors(existing, {})), 'E_USAGE');
  assert.equal(code(() => selectConnectors(existing, { names: ['audit'], all: true })), 'E_USAGE');
  assert.equal(code(() => selectConnectors(existing, { selector: '([' })), 'E_USAGE');
  assert.equal(code(() => selectConnectors(existing, { names: ['audit', 'audit'] })), 'E_USAGE');
  assert.equal(code(() => selectConnectors(existing, { names: ['audit', 'gone'] })), 'E_CONNECTOR_NOT_FOUND');
  assert.equal(code(() => selectConnectors([], { all: true })), 'E_PREFLIGHT');
});
