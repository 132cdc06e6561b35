// Real parts: the sandbox's Kafka and its two Connect workers, the tests' PostgreSQL.
// A context governs its cluster, not its URL text: alice's context `prod` (127.0.0.1:<worker 1>,
// the team store, approval required) applies to `--url http://localhost:<worker 1>` and to worker
// 2's URL alike — each change becomes a request in the team store and nothing changes. Two
// contexts that would send one cluster's changes to two stores, or a --store beside the governing
// one, are refused (exit 2) naming both.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { connectFixture, sortedOffsets, tempDir, type ConnectFixture } from '../support/connect.js';
import { runCli } from '../support/cli.js';
import { newDatabase, type TestDatabase } from '../support/postgres.js';
import { getSandbox } from '../support/sandbox.js';

let cluster: ConnectFixture;
let db: TestDatabase;
before(async () => {
  cluster = await connectFixture();
  db = await newDatabase('governed');
});
after(async () => cluster?.cleanup());

const target = (file: string, position: number): string => JSON.stringify({ offsets: [{ partition: { filename: file }, offset: { position } }] });

test('--url of another spelling or another worker of a governed cluster: its store and approval apply; two stores, or a --store beside it, are refused', async () => {
  const { connect } = await getSandbox();
  const [w1, w2] = [connect[0]!, connect[1] ?? connect[0]!];
  const dir = tempDir('offsetctl-governed-');
  const env = { OFFSETCTL_CONFIG: join(dir, 'config.yaml'), OFFSETCTL_STORE: undefined, OFFSETCTL_URL: undefined, PGPASSWORD: db.owner.password };
  const cli = (args: string[], stdin?: string) => runCli([...args, ...(args[0] === 'config' ? [] : ['--state-dir', join(dir, 'state')])], { env, ...(stdin !== undefined ? { stdin } : {}) });
  assert.equal((await cli(['config', 'set-context', 'prod', '--url', w1, '--store', db.url, '--require-approval'])).status, 0);
  // A context of its own current: nothing of prod's would apply by URL text.
  assert.equal((await cli(['config', 'set-context', 'scratch', '--url', 'http://127.0.0.1:9'])).status, 0);
  assert.equal((await cli(['config', 'use-context', 'scratch'])).status, 0);
  const source = await cluster.createSource(4);
  const before = sortedOffsets(await cluster.offsets(source.name));

  for (const url of [w1.replace('127.0.0.1', 'localhost'), w2]) {
    const r = await cli(['rewind', source.name, '--offsets', '-', '--yes', '--url', url, '-o', 'json'], target(source.file, 0));
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { status: string; request: { id: string; requestedBy: string } };
    assert.equal(out.status, 'requested', r.stdout);
    assert.match(r.stderr, new RegExp(`${url.replace(/[.:/]/g, '\\$&')} is a worker of the cluster context prod governs, which requires approval: change request chg-\\S+ .*recorded in postgres://`));
    assert.deepEqual(sortedOffsets(await cluster.offsets(source.name)), before, 'nothing changed');
  }
  // Both requests are in the team store, none in the local file.
  const listed = JSON.parse((await cli(['changes', 'list', '--store', db.url, '-o', 'json', '--url', w1])).stdout) as unknown[];
  assert.equal(listed.length, 2);
  const local = await cli(['runs', '-o', 'json', '--store', 'sqlite', '--url', 'http://127.0.0.1:9']);
  assert.deepEqual(JSON.parse(local.stdout), []);

  // --store naming another store for that cluster: refused, naming the governing context and store.
  const elsewhere = await cli(['rewind', source.name, '--offsets', '-', '--yes', '--url', w2, '--store', 'sqlite'], target(source.file, 0));
  assert.equal(elsewhere.status, 2, elsewhere.stdout);
  assert.match(elsewhere.stderr, /which context prod governs with store postgres:\/\/\S+; --store names the state folder's SQLite file/);

  // A second context for the same cluster with another store: refused, naming both.
  assert.equal((await cli(['config', 'set-context', 'prod-local', '--url', w2, '--require-approval'])).status, 0);
  const two = await cli(['rewind', source.name, '--offsets', '-', '--yes', '--url', w1.replace('127.0.0.1', 'localhost')], target(source.file, 0));
  assert.equal(two.status, 2, two.stdout);
  assert.match(two.stderr, /which contexts prod \(store postgres:\/\/\S+\) and prod-local \(store the state folder's SQLite file\) both govern: one cluster has one store/);
  assert.deepEqual(sortedOffsets(await cluster.offsets(source.name)), before, 'nothing changed');
});
