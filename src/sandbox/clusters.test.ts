// Real parts: none (the code under test, in this process).
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { clusterOrder, clusterSpec, isBrokerRole, laneCluster, parseWorkerRole, workerRole } from './clusters.js';
import { clusterBootstrap, clusterWorkerUrls, workerUrls, type SandboxState } from './state.js';

test('worker roles name their cluster; the main cluster keeps worker-<n>', () => {
  assert.equal(workerRole('main', 2), 'worker-2');
  assert.equal(workerRole('second', 1), 'second-worker-1');
  assert.equal(workerRole('other', 1), 'other-worker-1');
  assert.deepEqual(parseWorkerRole('worker-3'), { cluster: 'main', index: 3 });
  assert.deepEqual(parseWorkerRole('second-worker-12'), { cluster: 'second', index: 12 });
  assert.deepEqual(parseWorkerRole('other-worker-1'), { cluster: 'other', index: 1 });
  for (const role of ['broker', 'other-broker', 'worker-0', 'third-worker-1', 'worker-x', 'lane-1-worker-1', 'lane-9-worker-1']) {
    assert.equal(parseWorkerRole(role), undefined, role);
  }
  assert.ok(isBrokerRole('broker') && isBrokerRole('other-broker') && !isBrokerRole('worker-1'));
});

test('each cluster lists only its own workers, in worker order, with its own Kafka', () => {
  const state: SandboxState = {
    version: 1, kafkaVersion: '4.4.0',
    ports: { broker: 1, controller: 2, workers: [3, 4], secondWorkers: [5, 6], other: { broker: 7, controller: 8, workers: [9] } },
    processes: [
      { role: 'broker', pid: 10, port: 1, log: 'b' },
      { role: 'second-worker-2', pid: 14, port: 6, log: 's2' },
      { role: 'worker-1', pid: 11, port: 3, log: 'w1' },
      { role: 'second-worker-1', pid: 13, port: 5, log: 's1' },
      { role: 'worker-2', pid: 12, port: 4, log: 'w2' },
      { role: 'other-broker', pid: 15, port: 7, log: 'ob' },
      { role: 'other-worker-1', pid: 16, port: 9, log: 'ow' },
    ],
  };
  assert.deepEqual(workerUrls(state), ['http://127.0.0.1:3', 'http://127.0.0.1:4']);
  assert.deepEqual(clusterWorkerUrls(state, 'second'), ['http://127.0.0.1:5', 'http://127.0.0.1:6']);
  assert.deepEqual(clusterWorkerUrls(state, 'other'), ['http://127.0.0.1:9']);
  assert.equal(clusterBootstrap(state, 'second'), '127.0.0.1:1');
  assert.equal(clusterBootstrap(state, 'other'), '127.0.0.1:7');
});

test('a test lane after the first has a Connect cluster of its own on the broker: own group.id, internal topics and worker names', () => {
  assert.equal(laneCluster(1), 'main', 'lane 1 is the main cluster');
  assert.equal(laneCluster(3), 'lane-3');
  assert.deepEqual(clusterSpec('lane-2'), {
    name: 'lane-2', kafka: 'main', groupId: 'offsetctl-sandbox-lane-2', topicPrefix: 'offsetctl-sandbox-lane-2', rolePrefix: 'lane-2-',
  });
  const groups = ['main', 'second', 'lane-2', 'lane-3', 'other'].map((c) => clusterSpec(c as 'main').groupId);
  assert.equal(new Set(groups).size, groups.length, 'no two clusters share a group');
  assert.equal(workerRole('lane-2', 1), 'lane-2-worker-1');
  assert.deepEqual(parseWorkerRole('lane-4-worker-2'), { cluster: 'lane-4', index: 2 });
  assert.deepEqual(clusterOrder(['lane-3', 'lane-2']), ['main', 'second', 'lane-2', 'lane-3', 'other']);
  const state: SandboxState = {
    version: 1, kafkaVersion: '4.4.0',
    ports: { broker: 1, controller: 2, workers: [3, 4], lanes: { 'lane-2': [5, 6] } },
    processes: [
      { role: 'broker', pid: 10, port: 1, log: 'b' },
      { role: 'worker-1', pid: 11, port: 3, log: 'w1' },
      { role: 'lane-2-worker-2', pid: 14, port: 6, log: 'l2' },
      { role: 'lane-2-worker-1', pid: 13, port: 5, log: 'l1' },
    ],
  };
  assert.deepEqual(clusterWorkerUrls(state, 'lane-2'), ['http://127.0.0.1:5', 'http://127.0.0.1:6']);
  assert.deepEqual(workerUrls(state), ['http://127.0.0.1:3'], 'the main cluster lists none of the lane\'s workers');
  assert.equal(clusterBootstrap(state, 'lane-2'), '127.0.0.1:1');
});
