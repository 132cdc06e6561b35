// Real parts: the sandbox's Kafka and a Connect cluster of two workers; spawns the CLI.
// Restore after a deletion: a connector exported, deleted, and imported back under its own name
// on the same Connect cluster. Kafka Connect keeps the deleted connector's task statuses and shows
// them, UNASSIGNED, for the new one created STOPPED — for good (seen on 4.4) — so a wait for "no
// tasks" never ended and the import failed at waitForStopped. The shipped workflows wait for no
// task that runs instead; the import runs, with the exported offsets, RUNNING again. Whether
// Connect keeps the statuses is a race of its own (by hand 2 of 2 times; policy.test.ts's import
// 2 of 3 runs; this file 0 of 4 without the fix), so this is the restore path's guard, and
// src/ops/workflows/criteria-words.test.ts checks the criterion on the very status Connect showed.
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runCli } from '../support/cli.js';
import { connectFixture, sortedOffsets, tempDir, uniqueName, waitFor, type ConnectFixture } from '../support/connect.js';

let cluster: ConnectFixture;
before(async () => {
  cluster = await connectFixture();
});
after(async () => cluster?.cleanup());

test('export, delete, import back under the same name: the deleted connector\'s UNASSIGNED task statuses do not stop the import', async () => {
  const source = await cluster.createSource(4, { name: uniqueName('again') });
  await waitFor(`${source.name} to commit its offset`, async () => (await cluster.offsets(source.name)).offsets.length > 0);
  const stateDir = tempDir('offsetctl-again-');
  const exported = await runCli(['export', source.name, '--url', cluster.url, '--state-dir', stateDir]);
  assert.equal(exported.status, 0, exported.stderr);
  const file = join(stateDir, 'backup.yaml');
  writeFileSync(file, exported.stdout);
  const offsets = sortedOffsets(await cluster.offsets(source.name));
  await cluster.deleteConnector(source.name);
  // As an operator would: gone for a while (3 s was enough to see the stale statuses every time by hand).
  await new Promise((r) => setTimeout(r, 3000));

  const imported = await runCli(['import', file, '--to', cluster.url, '--allow-duplicate-source', '--yes', '--state-dir', stateDir]);
  assert.equal(imported.status, 0, `${imported.stdout}${imported.stderr}`);
  assert.doesNotMatch(imported.stdout, /failed/);
  assert.equal((await cluster.status(source.name)).connector.state, 'RUNNING');
  assert.deepEqual(sortedOffsets(await cluster.offsets(source.name)), offsets, 'the exported offsets');
});
