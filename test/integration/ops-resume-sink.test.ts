// `runs resume` of a run whose journal does not record the connector type (older versions did
// not): the type comes from Kafka Connect, so a sink's snapshot is stored as a sink's.
// Real parts: the sandbox's Kafka broker and Connect cluster, a SQLite store file, child processes, spawns the CLI.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { openStore } from '../../src/store/index.js';
import { type ConnectFixture, tempDir, uniqueName, connectFixture } from '../support/connect.js';
import { runCli } from '../support/cli.js';
import { repoRoot as REPO_ROOT } from '../support/repo.js';

let cluster: ConnectFixture;
let sink: string;
let topic: string;
let stateDir: string;

before(async () => {
  cluster = await connectFixture();
  const source = await cluster.createSource(3);
  topic = source.topic;
  sink = uniqueName('ops-sink-resume');
  const created = await cluster.request('POST', '/connectors', { name: sink, config: { 'connector.class': 'org.apache.kafka.connect.file.FileStreamSinkConnector', 'tasks.max': '1', file: join(cluster.dir, `${sink}.out`), topics: topic } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  await cluster.waitRunning(sink);
  stateDir = tempDir('offsetctl-state-resume-sink-');
});
after(async () => {
  await cluster?.request('DELETE', `/connectors/${encodeURIComponent(sink)}`).catch(() => undefined);
  await cluster?.cleanup();
});

test('resuming a run without a recorded connector type stores the sink\'s snapshot as a sink snapshot', async () => {
  const offsets = [{ partition: { kafka_topic: topic, kafka_partition: 0 }, offset: { kafka_offset: 1 } }];
  // A process records the run (no connectorType in its context) and dies, as a killed run's would.
  const storeModule = pathToFileURL(join(REPO_ROOT, 'dist', 'src', 'store', 'index.js')).href;
  const script = `const { openStore } = await import(${JSON.stringify(storeModule)});
    const store = openStore(${JSON.stringify(stateDir)});
    const run = await store.beginRun({ clusterUrl: ${JSON.stringify(cluster.url)}, connector: ${JSON.stringify(sink)}, operation: 'rewind',
      workflowFile: 'rewind-connector-offsets.arazzo.yaml', workflowId: 'rewind-connector-offsets',
      inputs: { connectorName: ${JSON.stringify(sink)}, offsets: ${JSON.stringify(offsets)}, resumeAfter: 'auto' }, context: {} });
    await store.close();
    process.stdout.write(run.id);`;
  const made = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(made.status, 0, made.stderr);
  const runId = made.stdout.trim();

  const resumed = await runCli(['runs', 'resume', runId, '--yes', '--url', cluster.url, '--state-dir', stateDir]);
  assert.equal(resumed.status, 0, resumed.stderr + resumed.stdout);
  await cluster.waitRunning(sink);
  const store = openStore(stateDir);
  try {
    const snapshotId = (await store.getRun(runId)).context.snapshotId;
    assert.ok(snapshotId, 'the resumed run took a snapshot');
    assert.equal((await store.getSnapshot(snapshotId)).connectorType, 'sink');
  } finally {
    await store.close();
  }
});
