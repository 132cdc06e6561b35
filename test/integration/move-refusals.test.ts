// Refused before anything is created (exit 2, every reason named, the target cluster unchanged):
// an import whose connectors need a plugin the cluster does not have, another version of one it
// has, a configuration Kafka Connect does not accept, a name already taken, a sink whose offsets
// belong to another Kafka cluster; a move to a cluster where the name is taken, or to the cluster
// it is on. One connector of the target is used (the taken name); the rest is a crafted backup.
// Real parts: the sandbox's Kafka broker and Connect cluster, a SQLite store file, spawns the CLI.
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { tempDir, uniqueName, waitFor } from '../support/connect.js';
import { moveCli, moveStateDir, twoClusters, type TwoClusters } from '../support/move.js';

let clusters: TwoClusters;
let cli: ReturnType<typeof moveCli>;
let dir: string;
let taken: string;

before(async () => {
  clusters = await twoClusters();
  cli = moveCli(moveStateDir('move-refusals'));
  dir = tempDir('offsetctl-move-refusals-');
  taken = uniqueName('refusal-taken');
  for (const rest of [clusters.main, clusters.second]) {
    await rest.createConnector(taken, { 'connector.class': 'FileStreamSource', 'tasks.max': '1', file: join(dir, 'in.txt'), topic: `${taken}-topic` }, 'STOPPED');
  }
});

after(async () => {
  for (const rest of [clusters?.main, clusters?.second]) if (rest) await rest.deleteConnector(taken).catch(() => undefined);
});

function connector(name: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name, type: 'source', state: 'RUNNING', plugin: { class: 'org.apache.kafka.connect.file.FileStreamSourceConnector' },
    config: { 'connector.class': 'FileStreamSource', 'tasks.max': '1', file: join(dir, `${name}.txt`), topic: `${name}-topic` },
    offsets: [], offsetsRead: 'stopped', readAt: new Date().toISOString(), ...over,
  };
}

test('an import with a missing plugin, another plugin version, an invalid config, a taken name and a foreign sink is refused whole; nothing is created', { timeout: 180_000 }, async () => {
  const n = uniqueName('refused');
  const version = ((await clusters.second.expect('GET', '/connector-plugins', [200])) as Array<{ class: string; version: string }>).find((p) => p.class.endsWith('FileStreamSourceConnector'))?.version;
  const fine = connector(`${n}-fine`);
  const backup = {
    kind: 'offsetctl-backup', version: 1, exportedAt: new Date().toISOString(), cluster: { url: 'http://elsewhere:8083' },
    connectors: [
      fine,
      connector(`${n}-missing`, { plugin: { class: 'com.example.connect.NoSuchSourceConnector', version: '1.0.0' }, config: { 'connector.class': 'com.example.connect.NoSuchSourceConnector', 'tasks.max': '1' } }),
      connector(`${n}-version`, { plugin: { class: 'org.apache.kafka.connect.file.FileStreamSourceConnector', version: '0.9.0' } }),
      connector(`${n}-invalid`, { config: { 'connector.class': 'FileStreamSource', 'tasks.max': 'several', file: join(dir, 'x.txt'), topic: 'x' } }),
      connector(taken),
      connector(`${n}-foreign-sink`, {
        type: 'sink', plugin: { class: 'org.apache.kafka.connect.file.FileStreamSinkConnector' }, kafkaClusterId: 'AnotherKafkaClusterId0',
        config: { 'connector.class': 'FileStreamSink', 'tasks.max': '1', file: join(dir, 'out.txt'), topics: 'orders' },
        offsets: [{ partition: { kafka_topic: 'orders', kafka_partition: 0 }, offset: { kafka_offset: 5 } }],
      }),
    ],
  };
  const file = join(dir, 'backup.json');
  writeFileSync(file, JSON.stringify(backup));
  const before = (await clusters.second.listConnectors()).sort();
  const r = await cli(['import', file, '--to', clusters.secondUrls, '--yes']);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /refused before anything was created \(5 of 6 connector\(s\)\)/);
  assert.match(r.stderr, new RegExp(`${n}-missing: plugin com\\.example\\.connect\\.NoSuchSourceConnector is not installed there`));
  assert.match(r.stderr, new RegExp(`${n}-version: plugin org\\.apache\\.kafka\\.connect\\.file\\.FileStreamSourceConnector 0\\.9\\.0 is not installed there \\(it has ${version}\\).*--allow-plugin-version-change`));
  assert.match(r.stderr, new RegExp(`${n}-invalid: Kafka Connect there does not accept its configuration: tasks\\.max: Invalid value several`));
  assert.match(r.stderr, new RegExp(`${taken}: a connector named ${taken} exists there already; choose another name or replace it \\(--replace\\)`));
  assert.match(r.stderr, new RegExp(`${n}-foreign-sink: it is a sink whose offsets belong to Kafka cluster AnotherKafkaClusterId0`));
  assert.doesNotMatch(r.stderr, new RegExp(`${n}-fine:`), 'the one that is fine is not refused');
  assert.deepEqual((await clusters.second.listConnectors()).sort(), before, 'nothing was created');
  // The refused import is one refused entry per refused connector, each with its name and reason, under the OS user.
  const audit = (await cli(['audit', '-o', 'json'])).stdout.trim().split('\n').filter(Boolean)
    .map((l) => JSON.parse(l) as { action: string; outcome: string; connector?: string; message: string; actor: { via: string } });
  const refusedNames = [`${n}-missing`, `${n}-version`, `${n}-invalid`, taken, `${n}-foreign-sink`];
  assert.deepEqual(audit.map((e) => [e.action, e.outcome, e.actor.via, e.connector]), refusedNames.map((c) => ['import', 'refused', 'cli', c]), JSON.stringify(audit));
  assert.match(audit.find((e) => e.connector === `${n}-missing`)!.message, /^\[E_PREFLIGHT\] plugin com\.example\.connect\.NoSuchSourceConnector is not installed there/);
  const one = await cli(['audit', '--connector', `${n}-invalid`]);
  assert.equal(one.status, 0, one.stderr);
  assert.equal(one.stdout.trim().split('\n').length, 2, `a header and one line: ${one.stdout}`);
  assert.match(one.stdout, /import\s+refused\s+\S+-invalid .*Kafka Connect there does not accept its configuration/);

  // The plugin version is waived on request; the rest stay refused.
  const waived = await cli(['import', file, '--to', clusters.secondUrls, '--only', `${n}-version`, '--allow-plugin-version-change', '--dry-run']);
  assert.equal(waived.status, 0, waived.stderr);
  // A bad document is refused naming the field, before any cluster is asked.
  writeFileSync(file, JSON.stringify({ ...backup, connectors: [{ ...fine, type: 'both' }] }));
  const bad = await cli(['import', file, '--to', 'http://127.0.0.1:9']);
  assert.equal(bad.status, 2, bad.stderr);
  assert.match(bad.stderr, /connectors\[0\]\.type must be source or sink/);
});

test('a move to a cluster where the name is taken, or to the cluster it is on, is refused; the connector stays as it was', { timeout: 120_000 }, async () => {
  const r = await cli(['move', taken, '--url', clusters.mainUrls, '--to', clusters.secondUrls, '--yes']);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, new RegExp(`The move of ${taken} to .* refused before anything changed: a connector named ${taken} exists there already`));
  const same = await cli(['move', taken, '--url', clusters.mainUrls, '--to', clusters.mainUrls, '--yes']);
  assert.equal(same.status, 2, same.stderr);
  assert.match(same.stderr, /--to names the cluster .* is on already/);
  assert.equal((await clusters.main.status(taken)).connector.state, 'STOPPED');
  const unknown = await cli(['move', 'no-such-connector-here', '--url', clusters.mainUrls, '--to', clusters.secondUrls, '--yes']);
  assert.equal(unknown.status, 2, unknown.stderr);
  assert.match(unknown.stderr, /not found/);
});

test('move --selector --keep-source moves several connectors as a batch: each its own run, with its offsets, the originals left STOPPED, one summary', { timeout: 300_000 }, async () => {
  const prefix = uniqueName('batch-move');
  const names = [`${prefix}-a`, `${prefix}-b`];
  try {
    for (const [i, name] of names.entries()) {
      await clusters.main.createConnector(name, { 'connector.class': 'FileStreamSource', 'tasks.max': '1', file: join(dir, `${name}.txt`), topic: `${name}-topic` }, 'STOPPED');
      await clusters.main.waitForStopped(name);
      await clusters.main.expect('PATCH', `/connectors/${name}/offsets`, [200], { offsets: [{ partition: { filename: join(dir, `${name}.txt`) }, offset: { position: 10 + i } }] });
    }
    const r = await cli(['move', '--selector', `^${prefix}-`, '--keep-source', '--url', clusters.mainUrls, '--to', clusters.secondUrls, '--yes', '-o', 'json']);
    assert.equal(r.status, 0, r.stderr + r.stdout);
    const summary = JSON.parse(r.stdout) as { operation: string; counts: { succeeded: number }; connectors: Array<{ connector: string; status: string; finalState: string; runId: string }> };
    assert.equal(summary.operation, 'move');
    assert.equal(summary.counts.succeeded, 2, r.stdout);
    assert.notEqual(summary.connectors[0]?.runId, summary.connectors[1]?.runId, 'one run each');
    for (const [i, name] of names.entries()) {
      assert.equal((await clusters.main.status(name)).connector.state, 'STOPPED', 'the original stays, STOPPED (--keep-source)');
      assert.equal((await clusters.second.status(name)).connector.state, 'STOPPED', 'STOPPED before, STOPPED after');
      assert.equal((await clusters.second.offsets(name)).offsets[0]?.offset?.position, 10 + i);
    }
  } finally {
    for (const rest of [clusters.main, clusters.second]) for (const name of names) await rest.deleteConnector(name).catch(() => undefined);
  }
});

test('an import beside its running original on the same Kafka cluster: the sink refused in pre-flight (its group has members), the source without --allow-duplicate-source', { timeout: 240_000 }, async () => {
  const n = uniqueName('beside');
  const input = join(dir, `${n}-in.txt`);
  writeFileSync(input, 'a\nb\nc\n');
  const [source, sink] = [`${n}-src`, `${n}-sink`];
  try {
    await clusters.main.createConnector(source, { 'connector.class': 'FileStreamSource', 'tasks.max': '1', file: input, topic: `${n}-t` }, 'RUNNING');
    await clusters.main.waitForRunning(source);
    await clusters.main.createConnector(sink, { 'connector.class': 'FileStreamSink', 'tasks.max': '1', file: join(dir, `${n}-out.txt`), topics: `${n}-t` }, 'RUNNING');
    await clusters.main.waitForRunning(sink);
    await waitFor(`${sink} to commit`, async () => (await clusters.main.offsets(sink)).offsets.length > 0, 120_000);
    const exported = await cli(['export', source, sink, '--url', clusters.mainUrls, '-o', 'json']);
    assert.equal(exported.status, 0, exported.stderr);
    const file = join(dir, `${n}.json`);
    writeFileSync(file, exported.stdout);

    const r = await cli(['import', file, '--to', clusters.secondUrls, '--bootstrap', clusters.bootstrap, '--yes']);
    assert.equal(r.status, 2, r.stderr + r.stdout);
    assert.match(r.stderr, /refused before anything was created \(2 of 2 connector\(s\)\)/);
    assert.match(r.stderr, new RegExp(`${sink}: consumer group connect-${sink} has active members \\(STABLE\\): its original runs on a Connect cluster of this Kafka cluster`));
    assert.match(r.stderr, new RegExp(`${source}: it is a source exported from .* on this same Kafka cluster: .*two copies would write the same records into ${n}-t.*--allow-duplicate-source`));
    for (const name of [source, sink]) assert.equal((await clusters.second.request('GET', `/connectors/${name}`)).status, 404, 'nothing was created');

    // Without Kafka settings the sink's group cannot be asked: said, not hidden.
    const unchecked = await cli(['import', file, '--to', clusters.secondUrls, '--only', sink, '--dry-run']);
    assert.equal(unchecked.status, 0, unchecked.stderr);
    assert.match(unchecked.stderr, new RegExp(`could not check whether consumer group connect-${sink} has active members`));
    // The original stopped: its group is empty, the sink passes; the source passes with the flag, warned.
    await clusters.main.stop(sink);
    await clusters.main.waitForStopped(sink);
    await waitFor(`connect-${sink} to be empty`, async () => {
      const dry = await cli(['import', file, '--to', clusters.secondUrls, '--bootstrap', clusters.bootstrap, '--allow-duplicate-source', '--dry-run']);
      return dry.status === 0 ? dry : false;
    }, 60_000, 2_000).then((dry) => assert.match(dry.stderr, new RegExp(`${source}: a source on the Kafka cluster of its original`)));
  } finally {
    for (const rest of [clusters.main, clusters.second]) for (const name of [source, sink]) await rest.deleteConnector(name).catch(() => undefined);
  }
});
