// Real parts: none (the code under test, in this process).
import * as assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { brokerAddress, readState, workerUrls, writeState, type SandboxState } from './state.js';
import { newClusterId } from './up.js';

test('the state file round-trips and gives the URLs', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'offsetctl-state-')), 'state.json');
  const state: SandboxState = {
    version: 1, kafkaVersion: '4.1.1', ports: { broker: 1, controller: 2, workers: [3, 4] },
    processes: [{ role: 'broker', pid: 10, port: 1, log: 'b' }, { role: 'worker-1', pid: 11, port: 3, log: 'w' }],
  };
  writeState(file, state);
  assert.deepEqual(readState(file), state);
  assert.equal(brokerAddress(state), '127.0.0.1:1');
  assert.deepEqual(workerUrls(state), ['http://127.0.0.1:3']);
});

test('a torn or foreign state file reads as no state', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'offsetctl-state-')), 'state.json');
  writeFileSync(file, '{"version": 1, "ports"');
  assert.equal(readState(file), undefined);
  writeFileSync(file, '{"version": 7}');
  assert.equal(readState(file), undefined);
  assert.equal(readState(`${file}.missing`), undefined);
});

test('cluster ids are 22 URL-safe base64 characters, never starting with "-"', () => {
  for (let i = 0; i < 200; i++) assert.match(newClusterId(), /^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/);
});
