// Real parts: the sandbox's broker and its two Connect clusters on it (main and second: own
// group.id and offsets topic, one Kafka cluster id), two same-named FileStream sources.
// Kafka Connect names only the Kafka cluster, so both share `kafka:<id>`; their members (the
// workers, ops/cluster/members.ts) tell them apart: a plan made on one is refused on the other,
// and a rollback on one never picks a snapshot taken on the other.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { ConnectFixture, sortedOffsets, tempDir, uniqueName, waitFor } from '../support/connect.js';
import { moveCli, twoClusters } from '../support/move.js';

let main: ConnectFixture;
let second: ConnectFixture;
before(async () => {
  const clusters = await twoClusters();
  main = new ConnectFixture(clusters.main.baseUrl);
  second = new ConnectFixture(clusters.second.baseUrl);
});
after(async () => {
  await main?.cleanup();
  await second?.cleanup();
});

const target = (file: string, position: number): string => JSON.stringify({ offsets: [{ partition: { filename: file }, offset: { position } }] });

test('two Connect clusters on one Kafka cluster: a plan made on one is refused on the other; a rollback on one never picks the other\'s snapshot', async () => {
  const name = uniqueName('twin');
  const a = await main.createSource(4, { name });
  // The same name, file and topic on the second cluster: the plans of the two
  // look alike in every way Connect's REST API shows but the workers.
  await second.createConnector(name, { 'connector.class': 'org.apache.kafka.connect.file.FileStreamSourceConnector', 'tasks.max': '1', file: a.file, topic: a.topic });
  const b = { file: a.file };
  after(() => second.deleteConnector(name).catch(() => undefined));
  await second.waitRunning(name);
  await waitFor(`${name} on the second cluster to commit the file's end`, async () => JSON.stringify(await second.offsets(name)) === JSON.stringify(await main.offsets(name)));
  const cli = moveCli(tempDir('offsetctl-twins-'));

  // A plan made on main, applied through the second cluster's worker: refused, nothing changed there.
  const planFile = join(tempDir('offsetctl-twins-plan-'), 'plan.json');
  const planned = await cli(['rewind', name, '--offsets', '-', '--plan-out', planFile, '--url', main.url], { stdin: target(a.file, 0) });
  assert.equal(planned.status, 0, planned.stderr);
  const beforeB = sortedOffsets(await second.offsets(name));
  const applied = await cli(['apply', planFile, '--yes', '--url', second.url]);
  assert.equal(applied.status, 2, applied.stdout);
  assert.match(applied.stderr, /E_PLAN_STALE.*the plan was made on another Connect cluster of Kafka cluster/);
  assert.deepEqual(sortedOffsets(await second.offsets(name)), beforeB);

  // A rewind on main (its snapshot), then one on second (a newer snapshot of a same-named connector).
  const beforeA = sortedOffsets(await main.offsets(name));
  assert.equal((await cli(['rewind', name, '--offsets', '-', '--yes', '--leave-stopped', '--url', main.url], { stdin: target(a.file, 1) })).status, 0);
  const onSecond = await cli(['rewind', name, '--offsets', '-', '--yes', '--leave-stopped', '--url', second.url, '-o', 'json'], { stdin: target(b.file, 2) });
  assert.equal(onSecond.status, 0, onSecond.stderr);
  const secondSnapshot = (JSON.parse(onSecond.stdout) as { snapshotId: string }).snapshotId;

  // Rollback on main: its own snapshot, never the second's newer one, which is named as not offered.
  const dry = await cli(['rollback', name, '--dry-run', '--url', main.url, '-o', 'json']);
  assert.equal(dry.status, 0, dry.stderr);
  const plan = JSON.parse(dry.stdout) as { plan?: { snapshotId?: string }; snapshotId?: string; warnings?: string[] };
  const chosen = plan.plan?.snapshotId ?? plan.snapshotId;
  assert.ok(chosen && chosen !== secondSnapshot, dry.stdout);
  assert.match(dry.stderr + dry.stdout, new RegExp(`snapshot ${secondSnapshot} was taken on another Connect cluster of the same Kafka cluster`));
  const named = await cli(['rollback', name, '--snapshot', secondSnapshot, '--yes', '--url', main.url]);
  assert.equal(named.status, 2, named.stdout);
  assert.match(named.stderr, /was taken on another Connect cluster of the same Kafka cluster/);
  const restored = await cli(['rollback', name, '--yes', '--url', main.url]);
  assert.equal(restored.status, 0, restored.stderr);
  assert.deepEqual(sortedOffsets(await main.offsets(name)), beforeA, 'main restored from its own snapshot');
});
