// Real parts: the sandbox's Kafka and Connect workers, the tests' PostgreSQL with docs/team.md's
// role split. The team's admin (alice's team, its admin login) sets a policy through a context
// with the team store and the Kafka bootstrap: the cluster is marked in Kafka
// (`__offsetctl_governance`). Carol has no team store configured at all, only the cluster's URL
// and the bootstrap: her rewind, her stop and her console are refused (exit 2) naming the store,
// and nothing changes. Without a bootstrap she cannot know (a dry run goes on). The policy removed, the marker
// goes, and carol's stop applies.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { connectFixture, sortedOffsets, tempDir, uniqueName, type ConnectFixture } from '../support/connect.js';
import { runCli } from '../support/cli.js';
import { cliPath, repoRoot } from '../support/repo.js';
import { sandboxBootstrap } from '../support/fleet.js';
import { newSplitDatabase, type SplitDatabase } from '../support/postgres.js';
import { readGovernanceMarkers, writeGovernanceMarker } from '../../src/kafka/governance-marker.js';

let cluster: ConnectFixture;
let db: SplitDatabase;
let bootstrap: string;
before(async () => {
  cluster = await connectFixture();
  db = await newSplitDatabase(1);
  bootstrap = sandboxBootstrap();
});
after(async () => {
  // A marker a failed test left behind would govern this lane's cluster for later tests: removed.
  const left = [...(await readGovernanceMarkers({ bootstrap: [bootstrap] })).values()].filter((m) => m.connectUrl === cluster.url);
  for (const m of left) await writeGovernanceMarker({ bootstrap: [bootstrap] }, m, true);
  await cluster?.cleanup();
});

const target = (file: string, position: number): string => JSON.stringify({ offsets: [{ partition: { filename: file }, offset: { position } }] });

test('a policy marks the cluster in Kafka: carol, with no team store but the bootstrap, is refused (exit 2) naming the store; nothing changes; the policy removed, she is not', async () => {
  const adminDir = tempDir('offsetctl-marker-admin-');
  const adminEnv = { OFFSETCTL_CONFIG: join(adminDir, 'config.yaml'), OFFSETCTL_STORE: undefined, OFFSETCTL_URL: undefined, OFFSETCTL_BOOTSTRAP: undefined, PGPASSWORD: db.admin.password };
  const made = await runCli(['config', 'set-context', 'prod', '--url', cluster.url, '--store', db.url(db.admin), '--bootstrap', bootstrap], { env: adminEnv });
  assert.equal(made.status, 0, made.stderr);
  const admin = (args: string[]): ReturnType<typeof runCli> => runCli([...args, '--state-dir', join(adminDir, 'state')], { env: adminEnv });
  const carolDir = tempDir('offsetctl-marker-carol-');
  const carol = (args: string[], env: NodeJS.ProcessEnv, stdin?: string): ReturnType<typeof runCli> => runCli([...args, '--url', cluster.url, '--state-dir', join(carolDir, 'state')], {
    env: { OFFSETCTL_CONFIG: join(carolDir, 'config.yaml'), OFFSETCTL_STORE: undefined, OFFSETCTL_URL: undefined, PGPASSWORD: undefined, OFFSETCTL_BOOTSTRAP: undefined, ...env },
    ...(stdin !== undefined ? { stdin } : {}),
  });
  const source = await cluster.createSource(4, { name: uniqueName('marked') });

  const set = await admin(['policy', 'set', 'prod', '--require-approval']);
  assert.equal(set.status, 0, set.stderr);
  const markers = [...(await readGovernanceMarkers({ bootstrap: [bootstrap] })).values()].filter((m) => m.connectUrl === cluster.url);
  assert.equal(markers.length, 1, 'one marker for this Connect cluster');
  const port = new URL(db.url(db.admin)).port;
  assert.equal(markers[0]!.store, `postgres://127.0.0.1:${port}/${db.name}`, 'host, port and database: no login');
  assert.ok(!JSON.stringify(markers[0]).includes(db.admin.password), 'no password in the marker');
  assert.match(markers[0]!.policies.join(), /approval required/);

  const before = sortedOffsets(await cluster.offsets(source.name));
  const withKafka = { OFFSETCTL_BOOTSTRAP: bootstrap };
  const rewind = await carol(['rewind', source.name, '--offsets', '-', '--yes'], withKafka, target(source.file, 0));
  assert.equal(rewind.status, 2, rewind.stdout);
  assert.match(rewind.stderr, new RegExp(`which the team store postgres://127\\.0\\.0\\.1:${port}/${db.name} \\(context prod\\) governs .*nothing was changed.*--store postgres://USER@127\\.0\\.0\\.1:${port}/${db.name}`));
  assert.ok(!rewind.stderr.includes(db.admin.password));
  const stop = await carol(['stop', source.name], withKafka);
  assert.equal(stop.status, 2, stop.stdout);
  assert.match(stop.stderr, /governs/);
  // Her console (a face that changes things) does not start either.
  const console = spawnSync(process.execPath, [cliPath, 'ui', '--listen', '127.0.0.1:0', '--url', cluster.url, '--state-dir', join(carolDir, 'state')], {
    cwd: repoRoot, encoding: 'utf8', timeout: 30_000,
    env: { ...process.env, OFFSETCTL_CONFIG: join(carolDir, 'config.yaml'), OFFSETCTL_STORE: undefined, PGPASSWORD: undefined, ...withKafka } as NodeJS.ProcessEnv,
  });
  assert.equal(console.status, 2, `${console.stdout}${console.stderr}`);
  assert.match(console.stderr, /which the team store postgres:\/\/127\.0\.0\.1:\d+\/\S+ \(context prod\) governs/);
  assert.deepEqual(sortedOffsets(await cluster.offsets(source.name)), before, 'offsets unchanged');
  assert.equal((await cluster.status(source.name)).connector.state, 'RUNNING', 'still running');

  // Without a bootstrap it cannot know: a dry run goes on (docs/team.md says so).
  const blind = await carol(['rewind', source.name, '--offsets', '-', '--dry-run'], {}, target(source.file, 0));
  assert.equal(blind.status, 0, blind.stderr);

  // The policy removed, so is the marker: carol's stop applies.
  const removed = await admin(['policy', 'set', 'prod', '--no-require-approval']);
  assert.equal(removed.status, 0, removed.stderr);
  assert.equal([...(await readGovernanceMarkers({ bootstrap: [bootstrap] })).values()].filter((m) => m.connectUrl === cluster.url).length, 0, 'marker removed');
  const stopped = await carol(['stop', source.name], withKafka);
  assert.equal(stopped.status, 0, stopped.stderr);
  assert.equal((await carol(['resume', source.name], withKafka)).status, 0);
});
