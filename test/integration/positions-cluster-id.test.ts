// Safety: offsets looked up on another Kafka cluster than the worker's would move a connector to
// meaningless positions. A second, real single-node cluster (started here from the sandbox's
// jars, its own cluster id) stands in for "the wrong --bootstrap": refused with exit 2, both ids named.
// Real parts: the sandbox's Kafka broker and Connect cluster, a SQLite store file, the CLI in-process.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { runInProcess } from '../support/in-process.js';
import { connectFixture, type ConnectFixture, tempDir, uniqueName, waitFor } from '../support/connect.js';
import { KafkaAdmin } from '../../src/kafka/admin.js';
import { MINUTE, createTimedTopic, deleteTopics, sandboxBootstrap, startSecondBroker, type SecondBroker } from '../support/positions-kafka.js';

let cluster: ConnectFixture;
let bootstrap: string;
let second: SecondBroker | undefined;
let topic: string;
let sink: string;
let stateDir: string;

before(async () => {
  cluster = await connectFixture();
  bootstrap = await sandboxBootstrap();
  stateDir = tempDir('offsetctl-positions-id-');
  topic = uniqueName('positions-id');
  sink = `${topic}-sink`;
  second = await startSecondBroker();
  // The same topic exists on both clusters: only the cluster id tells them apart.
  for (const servers of [bootstrap, second.bootstrap]) await createTimedTopic(servers, topic, { partitions: 1, count: 4, baseMs: Date.now() - 10 * MINUTE });
  const res = await cluster.request('POST', '/connectors', { name: sink, config: {
    'connector.class': 'org.apache.kafka.connect.file.FileStreamSinkConnector', 'tasks.max': '1', file: join(cluster.dir, `${sink}.out`), topics: topic,
    'value.converter': 'org.apache.kafka.connect.storage.StringConverter',
    // Its consumer must not create the topic again while the connector is being deleted.
    'consumer.override.allow.auto.create.topics': 'false',
  } });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  await cluster.waitRunning(sink);
  await waitFor('the sink to commit 4', async () => (await cluster.offsets(sink)).offsets.some((o) => o.offset?.kafka_offset === 4));
});

after(async () => {
  await cluster?.request('DELETE', `/connectors/${sink}`);
  if (bootstrap && topic) await deleteTopics(bootstrap, [topic]);
  await second?.stop();
});

test('--bootstrap pointing at another cluster is refused, naming both cluster ids; nothing changes', async () => {
  const worker = (await cluster.request('GET', '/')).body as { kafka_cluster_id: string };
  const other = new KafkaAdmin({ bootstrap: [(second as SecondBroker).bootstrap] });
  const otherId = await other.clusterId().finally(() => other.close());
  assert.notEqual(otherId, worker.kafka_cluster_id);

  const before = JSON.stringify((await cluster.offsets(sink)).offsets);
  const r = await runInProcess(['rewind', sink, '--url', cluster.url, '--state-dir', stateDir, '--bootstrap', (second as SecondBroker).bootstrap, '--to-earliest', '--yes'], { env: { OFFSETCTL_CONFIG: join(stateDir, 'none.yaml') } });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, new RegExp(`is cluster ${otherId}, but the Connect worker at .* works with cluster ${worker.kafka_cluster_id}`));
  assert.equal(JSON.stringify((await cluster.offsets(sink)).offsets), before);
  assert.equal((await cluster.status(sink)).connector.state, 'RUNNING');

  // The right cluster is accepted.
  const ok = await runInProcess(['rewind', sink, '--url', cluster.url, '--state-dir', stateDir, '--bootstrap', bootstrap, '--to-earliest', '--dry-run'], { env: { OFFSETCTL_CONFIG: join(stateDir, 'none.yaml') } });
  assert.equal(ok.status, 0, ok.stderr);
});
