// A registered secret (here the bearer token) that happens to occur inside offsets data, in a
// source partition's file name. Snapshot, verification and rollback must use the real values
// (a masked snapshot would verify falsely and restore wrong offsets), while the secret still
// never reaches the output or the journal a person reads.
// Real parts: the sandbox's Kafka broker and Connect cluster, a SQLite store file, the CLI in-process.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { openStore } from '../../src/store/index.js';
import { type ConnectFixture, sortedOffsets, tempDir, connectFixture } from '../support/connect.js';
import type { InProcessResult as CliResult } from '../support/in-process.js';
import { runInProcess } from '../support/in-process.js';

// The sandbox's workers have no REST authentication: they ignore the Authorization header, so
// the token is registered as a secret without changing what Connect does.
const SECRET = `tok${Date.now().toString(36)}Zq9`;
const env = { OFFSETCTL_IT_TOKEN: SECRET };

let cluster: ConnectFixture;
let source: { name: string; file: string };
let stateDir: string;

before(async () => {
  cluster = await connectFixture();
  source = await cluster.createSource(4, { fileName: `input-${SECRET}.txt` });
  stateDir = tempDir('offsetctl-state-secret-');
});
after(async () => cluster?.cleanup());

function assertNoSecret(what: string, r: CliResult): void {
  assert.ok(!r.stdout.includes(SECRET), `${what}: stdout shows the secret:\n${r.stdout}`);
  assert.ok(!r.stderr.includes(SECRET), `${what}: stderr shows the secret:\n${r.stderr}`);
}

test('offsets that contain a secret are snapshotted, verified and rolled back exactly, and never shown', async () => {
  const before = await cluster.offsets(source.name);
  assert.ok(JSON.stringify(before).includes(SECRET), 'the planted value is in the offsets');
  const other = { filename: join(cluster.dir, `other-${SECRET}.txt`) };
  const target = { offsets: [{ partition: { filename: source.file }, offset: { position: 0 } }, { partition: other, offset: { position: 3 } }] };
  const conn = ['--url', cluster.url, '--token-env', 'OFFSETCTL_IT_TOKEN', '--state-dir', stateDir];

  const dry = await runInProcess(['rewind', source.name, '--offsets', '-', '--dry-run', ...conn], { stdin: JSON.stringify(target), env });
  assert.equal(dry.status, 0, dry.stderr);
  assertNoSecret('rewind --dry-run', dry);

  const rewind = await runInProcess(['rewind', source.name, '--offsets', '-', '--yes', '--leave-stopped', '--output', 'json', ...conn], { stdin: JSON.stringify(target), env });
  assert.equal(rewind.status, 0, `the verification must compare real values: ${rewind.stdout}\n${rewind.stderr}`);
  assertNoSecret('rewind', rewind);
  const outcome = JSON.parse(rewind.stdout) as { snapshotId: string; runId: string };
  assert.deepEqual(sortedOffsets(await cluster.offsets(source.name)), sortedOffsets(target));

  // The stored snapshot holds the real offsets, byte for byte.
  const store = openStore(stateDir);
  try {
    assert.deepEqual(sortedOffsets({ offsets: (await store.getSnapshot(outcome.snapshotId)).offsets as never[] }), sortedOffsets(before));
  } finally {
    await store.close();
  }

  for (const args of [['runs', 'show', outcome.runId], ['runs', 'show', outcome.runId, '--output', 'json'], ['snapshots', 'show', outcome.snapshotId], ['snapshots', 'show', outcome.snapshotId, '--output', 'json']]) {
    const shown = await runInProcess([...args, '--state-dir', stateDir, '--token-env', 'OFFSETCTL_IT_TOKEN'], { env });
    assert.equal(shown.status, 0, shown.stderr);
    assertNoSecret(args.join(' '), shown);
  }

  const rollback = await runInProcess(['rollback', source.name, '--yes', ...conn], { env });
  assert.equal(rollback.status, 0, rollback.stderr);
  assertNoSecret('rollback', rollback);
  await cluster.waitRunning(source.name);
  assert.deepEqual(sortedOffsets(await cluster.offsets(source.name)), sortedOffsets(before));
});
