// Real parts: the sandbox's Kafka and one Connect cluster, the CLI as a process with its own
// state folder (SQLite). A lock guards the offsets, so its key is where they live
// (ops/plan/lock-key.ts), for moves, copies, consistent exports and imports as for a rewind: a
// sink's runs lock its consumer group (`…#group:connect-<name>`), not the whole Kafka cluster.
// Each run records the key in its context (`lockKey`), which is what this test reads.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectFixture, tempDir, uniqueName, waitFor, type ConnectFixture } from '../support/connect.js';
import { runCli } from '../support/cli.js';

let cluster: ConnectFixture;
before(async () => {
  cluster = await connectFixture();
});
after(async () => cluster?.cleanup());

test('a copy, a consistent export and an import of a sink lock its consumer group, not the Kafka cluster', { timeout: 240_000 }, async () => {
  const dir = tempDir('offsetctl-lockkeys-moves-');
  const state = join(dir, 'state');
  const env = { OFFSETCTL_CONFIG: join(dir, 'none.yaml'), OFFSETCTL_STORE: undefined, OFFSETCTL_URL: undefined };
  const cli = (args: string[]) => runCli([...args, '--url', cluster.url, '--state-dir', state], { env });
  const source = await cluster.createSource(3, { name: uniqueName('lkm-src') });
  const sink = await cluster.createSink(source.name, { name: uniqueName('lkm-sink') });
  const copyName = `${sink.name}-copy`;

  const copied = await runCli(['copy', sink.name, '--as', copyName, '--to', cluster.url, '--url', cluster.url, '--state-dir', state, '--yes'], { env });
  assert.equal(copied.status, 0, copied.stderr);
  const exported = await cli(['export', copyName, '--consistent', '--yes']);
  assert.equal(exported.status, 0, exported.stderr);
  const backup = join(dir, 'backup.yaml');
  writeFileSync(backup, exported.stdout);
  assert.equal((await cluster.request('DELETE', `/connectors/${encodeURIComponent(copyName)}`)).status, 204);
  // The delete rebalances the workers: until it settles they answer 500 "a rebalance is expected" (seen here), not 404.
  await waitFor('the copy gone, the workers settled', async () => (await cluster.request('GET', `/connectors/${encodeURIComponent(copyName)}`)).status === 404, 60_000);
  const imported = await runCli(['import', backup, '--to', cluster.url, '--state-dir', state, '--yes'], { env });
  assert.equal(imported.status, 0, imported.stderr);

  const { openStore, groupLockKey } = await import('../../src/store/index.js');
  const store = openStore(state);
  try {
    const runs = [...(await store.listRuns({ connector: sink.name })), ...(await store.listRuns({ connector: copyName }))];
    const seen = runs.map((r) => [r.operation, r.connector, r.context.lockKey]).sort((a, b) => String(a).localeCompare(String(b)));
    const key = runs[0]!.clusterKey;
    assert.match(key, /^kafka:/);
    assert.deepEqual(seen, [
      ['copy', copyName, groupLockKey(key, `connect-${copyName}`)],
      ['copy', sink.name, groupLockKey(key, `connect-${sink.name}`)],
      ['export', copyName, groupLockKey(key, `connect-${copyName}`)],
      ['import', copyName, groupLockKey(key, `connect-${copyName}`)],
    ]);
  } finally {
    await store.close();
  }
  await cluster.request('DELETE', `/connectors/${encodeURIComponent(copyName)}`).catch(() => undefined);
});
