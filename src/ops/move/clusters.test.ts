// Real parts: none (the code under test, in this process).
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { requireInitialState } from './clusters.js';

test('a target below Kafka 3.7 cannot create a connector STOPPED: refused with the reason, before anything changes', () => {
  for (const version of ['3.6.2', '7.6.0-ccs']) {
    assert.throws(() => requireInitialState({ version, kafka: version === '3.6.2' ? [3, 6, 2] : [3, 6, 0] }, 'http://old:8083', 'the move'),
      (err: Error & { code?: string }) => err.code === 'E_PREFLIGHT' && /http:\/\/old:8083 runs .*"initial_state" field of POST \/connectors, Kafka 3\.7 and newer, KIP-980.*Nothing was changed/.test(err.message));
  }
  for (const kafka of [[3, 7, 0], [3, 9, 1], [4, 0, 0]] as Array<[number, number, number]>) assert.doesNotThrow(() => requireInitialState({ version: kafka.join('.'), kafka }, 'http://new:8083', 'the move'));
  // A worker that does not say its version is let through: the create then fails clearly enough.
  assert.doesNotThrow(() => requireInitialState(undefined, 'http://gateway:8083', 'the move'));
});
