// Moves and copies under the team's policy (issue 32), on the sandbox's two Connect clusters (main
// and second, one broker) and the tests' real PostgreSQL with docs/team.md's role split: the admin
// sets the policy; alice and bob are two processes with their own config, state folder and
// database login. Alice's move becomes a change request and nothing moves; she may not approve it
// herself; bob approves; alice applies it with `changes apply`: the connector is on the second
// cluster with its offsets, and the audit names each act under its login. A copy whose connector's
// configuration changed after approval is refused on apply, nothing created.
// Run with OFFSETCTL_LANE=1 (the move tests' lane) and OFFSETCTL_TEST_PG.
// Real parts: the sandbox's Kafka broker and Connect cluster, a real PostgreSQL, a SQLite store file, spawns the CLI.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectFixture, sortedOffsets, tempDir, uniqueName, waitFor, type ConnectFixture } from '../support/connect.js';
import { runCli, type CliResult } from '../support/cli.js';
import { twoClusters, type TwoClusters } from '../support/move.js';
import { newSplitDatabase, type SplitDatabase, type TestLogin } from '../support/postgres.js';

let clusters: TwoClusters;
let main: ConnectFixture;
let db: SplitDatabase;
const made: string[] = [];
before(async () => {
  clusters = await twoClusters();
  main = await connectFixture();
  db = await newSplitDatabase(2);
});
after(async () => {
  for (const name of made) for (const rest of [clusters?.main, clusters?.second]) await rest?.deleteConnector(name).catch(() => undefined);
  await main?.cleanup();
});

type Person = (args: string[]) => Promise<CliResult>;

/** One person: contexts prod (main) and second, both on the team store as their login, no approval of their own; own state folder. */
async function person(login: TestLogin): Promise<Person> {
  const dir = tempDir(`offsetctl-movepolicy-${login.user}-`);
  const env = { OFFSETCTL_CONFIG: join(dir, 'config.yaml'), OFFSETCTL_STORE: undefined, OFFSETCTL_URL: undefined, PGPASSWORD: login.password };
  for (const [name, urls] of [
    ['second', clusters.secondUrls],
    ['prod', clusters.mainUrls],
  ] as const) {
    const set = await runCli(['config', 'set-context', name, '--url', urls.split(',')[0]!, '--store', db.url(login)], { env });
    assert.equal(set.status, 0, set.stderr);
  }
  return (args) => runCli([...args, '--state-dir', join(dir, 'state')], { env });
}

interface AuditJson {
  action: string;
  outcome: string;
  message?: string;
  actor: { dbUser?: string };
}
const auditOf = async (who: Person, connector: string): Promise<AuditJson[]> =>
  (await who(['audit', '--connector', connector, '-o', 'json'])).stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as AuditJson);

test("alice's move under the policy is a request, nothing moves; she may not approve it; bob approves; alice applies it: " +
  'on the second cluster with its offsets, each act audited under its login; its rollback likewise', {
  timeout: 300_000,
}, async () => {
  const admin = await person(db.admin);
  const alice = await person(db.operators[0]!);
  const bob = await person(db.operators[1]!);
  const set = await admin(['policy', 'set', 'prod', '--require-approval', '--connectors', '^mvp-', '--actions', 'move,copy,rollback']);
  assert.equal(set.status, 0, set.stderr);
  const source = await main.createSource(6, { name: uniqueName('mvp') });
  made.push(source.name);
  const offsets = sortedOffsets(await main.offsets(source.name));

  const asked = await alice(['move', source.name, '--context', 'prod', '--to', 'second', '--yes', '-o', 'json']);
  assert.equal(asked.status, 0, asked.stderr);
  const { status, request } = JSON.parse(asked.stdout) as { status: string; request: { id: string; operation: string; requestedBy: string } };
  assert.equal(status, 'requested');
  assert.deepEqual([request.operation, request.requestedBy], ['move', db.operators[0]!.user]);
  assert.match(
    asked.stderr,
    /This change requires approval \(the team's policy: approval required for copy, move, rollback of connectors matching \^mvp- .*nothing was changed/s,
  );
  assert.equal((await main.status(source.name)).connector.state, 'RUNNING', 'the original still runs where it was');
  assert.equal((await clusters.second.request('GET', `/connectors/${source.name}`)).status, 404, 'nothing was created on the second cluster');

  const early = await alice(['changes', 'apply', request.id, '--yes']);
  assert.equal(early.status, 2, early.stdout);
  assert.match(early.stderr, /is pending, not approved/);
  const own = await alice(['changes', 'approve', request.id]);
  assert.equal(own.status, 2, own.stdout);
  assert.match(own.stderr, /who is you .*someone else/);
  const shown = await bob(['changes', 'show', request.id]);
  assert.equal(shown.status, 0, shown.stderr);
  assert.match(shown.stdout, new RegExp(`move of ${source.name} .* from http.* \\(kafka:.*\\) to http.* \\(kafka:`));
  const approved = await bob(['changes', 'approve', request.id]);
  assert.equal(approved.status, 0, approved.stderr);

  const applied = await alice(['changes', 'apply', request.id, '--yes', '-o', 'json']);
  assert.equal(applied.status, 0, applied.stderr + applied.stdout);
  assert.equal((JSON.parse(applied.stdout) as { status: string }).status, 'succeeded');
  assert.equal((await clusters.main.request('GET', `/connectors/${source.name}`)).status, 404, 'gone from the main cluster');
  assert.deepEqual(sortedOffsets(await clusters.second.offsets(source.name)), offsets, 'on the second cluster with the offsets it had');
  const again = await alice(['changes', 'apply', request.id, '--yes']);
  assert.equal(again.status, 2, 'a request is applied once');

  const audit = await auditOf(bob, source.name);
  const steps = audit.map((e) => [e.action, e.outcome, e.actor.dbUser]);
  const [a, b] = [db.operators[0]!.user, db.operators[1]!.user];
  for (const step of [
    ['change-request', 'requested', a],
    ['change-request', 'refused', a],
    ['change-request', 'approved', b],
    ['change-request', 'started', a],
    ['move', 'started', a],
    ['move', 'succeeded', a],
    ['change-request', 'succeeded', a],
  ]) {
    assert.ok(
      steps.some((s) => JSON.stringify(s) === JSON.stringify(step)),
      `${JSON.stringify(step)} in ${JSON.stringify(steps)}`,
    );
  }
  assert.match(audit.find((e) => e.action === 'move' && e.outcome === 'started')!.message ?? '', new RegExp(`change request ${request.id}`));

  // Its undo (`rollback` of the moved connector) waits for approval too.
  const undoAsked = await alice(['rollback', source.name, '--context', 'prod', '--to', 'second', '--yes', '-o', 'json']);
  assert.equal(undoAsked.status, 0, undoAsked.stderr);
  const undo = (JSON.parse(undoAsked.stdout) as { request: { id: string; operation: string } }).request;
  assert.equal(undo.operation, 'rollback');
  assert.equal((await clusters.second.status(source.name)).connector.state, 'RUNNING', 'nothing was undone yet');
  assert.equal((await clusters.main.request('GET', `/connectors/${source.name}`)).status, 404);
  assert.match((await alice(['changes', 'approve', undo.id])).stderr, /who is you/);
  assert.equal((await bob(['changes', 'approve', undo.id])).status, 0);
  const undone = await alice(['changes', 'apply', undo.id, '--yes', '-o', 'json']);
  assert.equal(undone.status, 0, undone.stderr + undone.stdout);
  assert.equal((JSON.parse(undone.stdout) as { status: string }).status, 'succeeded');
  assert.equal((await clusters.second.request('GET', `/connectors/${source.name}`)).status, 404, 'gone from the second cluster');
  await waitFor('the original running again on main', async () => (await main.status(source.name).catch(() => undefined))?.connector.state === 'RUNNING');
  assert.deepEqual(sortedOffsets(await main.offsets(source.name)), offsets, 'back with its offsets');
  const undoAudit = (await auditOf(bob, source.name)).map((e) => [e.action, e.outcome, e.actor.dbUser]);
  for (const step of [
    ['change-request', 'approved', b],
    ['rollback', 'started', a],
    ['rollback', 'succeeded', a],
  ]) {
    assert.ok(
      undoAudit.some((s) => JSON.stringify(s) === JSON.stringify(step)),
      `${JSON.stringify(step)} in ${JSON.stringify(undoAudit)}`,
    );
  }
});

test("an approved copy whose connector's configuration changed since the request is refused on apply: exit 2, nothing created", {
  timeout: 300_000,
}, async () => {
  const admin = await person(db.admin);
  const alice = await person(db.operators[0]!);
  const bob = await person(db.operators[1]!);
  assert.equal((await admin(['policy', 'set', 'prod', '--require-approval', '--connectors', '^mvc-'])).status, 0);
  const source = await main.createSource(3, { name: uniqueName('mvc') });
  const copy = `${source.name}-copy`;
  made.push(source.name, copy);

  const asked = await alice(['copy', source.name, '--context', 'prod', '--as', copy, '--to', 'second', '--yes', '-o', 'json']);
  assert.equal(asked.status, 0, asked.stderr);
  const { request } = JSON.parse(asked.stdout) as { request: { id: string } };
  assert.equal((await bob(['changes', 'approve', request.id])).status, 0);
  const config = (await main.expect('GET', `/connectors/${source.name}/config`, [200])) as Record<string, string>;
  await main.expect('PUT', `/connectors/${source.name}/config`, [200], { ...config, 'batch.size': '7' });

  const refused = await alice(['changes', 'apply', request.id, '--yes']);
  assert.equal(refused.status, 2, refused.stdout);
  assert.match(refused.stderr, /no longer fits, nothing was changed:.*configuration it would get on the target changed/s);
  assert.equal((await clusters.second.request('GET', `/connectors/${copy}`)).status, 404, 'no copy was created');
  assert.equal((await main.status(source.name)).connector.state, 'RUNNING');
});

test("alice's import under the policy is a request, nothing created; bob approves; alice applies it with the same backup: created with its offsets", {
  timeout: 300_000,
}, async () => {
  const admin = await person(db.admin);
  const alice = await person(db.operators[0]!);
  const bob = await person(db.operators[1]!);
  assert.equal((await admin(['policy', 'set', 'second', '--require-approval', '--connectors', '^mvi-', '--actions', 'import'])).status, 0);
  const source = await main.createSource(4, { name: uniqueName('mvi') });
  made.push(source.name);
  const offsets = sortedOffsets(await main.offsets(source.name));
  const exported = await alice(['export', source.name, '--context', 'prod']);
  assert.equal(exported.status, 0, exported.stderr);
  const file = join(tempDir('offsetctl-movepolicy-backup-'), 'backup.yaml');
  writeFileSync(file, exported.stdout);
  await clusters.main.deleteConnector(source.name);

  const asked = await alice(['import', file, '--context', 'prod', '--to', 'second', '--allow-duplicate-source', '--yes', '-o', 'json']);
  assert.equal(asked.status, 0, asked.stderr);
  const { request } = JSON.parse(asked.stdout) as { request: { id: string; operation: string } };
  assert.equal(request.operation, 'import');
  assert.match(asked.stderr, /requires approval .*nothing was changed.*changes apply \S+ --backup <the same file>/s);
  assert.equal((await clusters.second.request('GET', `/connectors/${source.name}`)).status, 404, 'nothing was created');
  assert.match((await alice(['changes', 'approve', request.id])).stderr, /who is you/);
  assert.equal((await bob(['changes', 'approve', request.id])).status, 0);
  const without = await alice(['changes', 'apply', request.id, '--yes']);
  assert.equal(without.status, 2);
  assert.match(without.stderr, /--backup <file>/);
  const other = join(tempDir('offsetctl-movepolicy-backup-'), 'other.yaml');
  writeFileSync(other, exported.stdout.replace(/exportedAt: .*/, 'exportedAt: 2020-01-01T00:00:00.000Z'));
  const wrong = await alice(['changes', 'apply', request.id, '--backup', other, '--yes']);
  assert.equal(wrong.status, 2, wrong.stdout);
  assert.match(wrong.stderr, /the backup given has digest .* give the same file/);

  const applied = await alice(['changes', 'apply', request.id, '--backup', file, '--yes', '-o', 'json']);
  assert.equal(applied.status, 0, applied.stderr + applied.stdout);
  assert.deepEqual(sortedOffsets(await clusters.second.offsets(source.name)), offsets, 'created on the second cluster with the exported offsets');
  const steps = (await auditOf(bob, source.name)).map((e) => [e.action, e.outcome, e.actor.dbUser]);
  const [a, b] = [db.operators[0]!.user, db.operators[1]!.user];
  for (const step of [
    ['change-request', 'requested', a],
    ['change-request', 'approved', b],
    ['import', 'started', a],
    ['import', 'succeeded', a],
    ['change-request', 'succeeded', a],
  ]) {
    assert.ok(
      steps.some((s) => JSON.stringify(s) === JSON.stringify(step)),
      `${JSON.stringify(step)} in ${JSON.stringify(steps)}`,
    );
  }
});

test('the door checks the request itself: applyMoveAudited with no request, or an id the store does not have as being applied, ' +
  'is refused and audited; nothing moves', {
  timeout: 120_000,
}, async () => {
  const { PostgresStore } = await import('../../src/store/postgres/index.js');
  const { pgSettings } = await import('../../src/store/postgres/connection.js');
  const { HttpClient } = await import('../../src/http/client.js');
  const { planMove, applyMoveAudited } = await import('../../src/ops/move/index.js');
  const admin = await person(db.admin);
  assert.equal((await admin(['policy', 'set', 'prod', '--require-approval', '--connectors', '^mvd-'])).status, 0);
  const source = await main.createSource(3, { name: uniqueName('mvd') });
  made.push(source.name);
  const alice = db.operators[0]!;
  const http = new HttpClient();
  const store = new PostgresStore(pgSettings(db.url(alice), { passwordEnv: 'P', env: { P: alice.password } }));
  try {
    const ctx = { url: clusters.mainUrls.split(',')[0]!, http, store };
    const to = { url: clusters.secondUrls.split(',')[0]!, http };
    const plan = await planMove(ctx, to, { connector: source.name, mode: 'move' });
    const scope = { actor: { user: 'face-that-forgot@test', via: 'cli' as const } };
    for (const id of [undefined, 'chg-20261204-000000-made']) {
      await assert.rejects(applyMoveAudited(ctx, to, plan, scope, {}, id), (err: Error & { code?: string }) => {
        assert.equal(err.code, 'E_APPROVAL_REQUIRED', err.message);
        return true;
      });
    }
    assert.equal((await main.status(source.name)).connector.state, 'RUNNING');
    assert.equal((await clusters.second.request('GET', `/connectors/${source.name}`)).status, 404);
    assert.deepEqual(
      (await store.listAudit({ connector: source.name })).map((e) => [e.action, e.outcome]),
      [
        ['move', 'refused'],
        ['move', 'refused'],
      ],
    );
  } finally {
    await store.close();
    await http.close();
  }
});

test('a consistent export a policy names is a request, nothing stopped; once bob approves, alice applies it and gets the backup', {
  timeout: 300_000,
}, async () => {
  const admin = await person(db.admin);
  const alice = await person(db.operators[0]!);
  const bob = await person(db.operators[1]!);
  assert.equal((await admin(['policy', 'set', 'prod', '--require-approval', '--connectors', '^mve-', '--actions', 'export'])).status, 0);
  const source = await main.createSource(3, { name: uniqueName('mve') });
  made.push(source.name);
  const plain = await alice(['export', source.name, '--context', 'prod']);
  assert.equal(plain.status, 0, 'a plain export stops nothing: not gated');
  const asked = await alice(['export', source.name, '--context', 'prod', '--consistent', '--yes']);
  assert.equal(asked.status, 0, asked.stderr);
  assert.equal(asked.stdout, '', 'no backup yet');
  const id = /change request (chg-\S+) \(export of /.exec(asked.stderr)?.[1];
  assert.ok(id, asked.stderr);
  assert.deepEqual(
    (await auditOf(bob, source.name)).filter((e) => e.action === 'export'),
    [],
    'nothing was stopped',
  );
  assert.match((await alice(['changes', 'approve', id])).stderr, /who is you/);
  assert.equal((await bob(['changes', 'approve', id])).status, 0);
  const applied = await alice(['changes', 'apply', id, '--yes']);
  assert.equal(applied.status, 0, applied.stderr);
  assert.match(applied.stdout, new RegExp(`name: ${source.name}`));
  assert.match(applied.stderr, /1 read while stopped/);
  const steps = (await auditOf(bob, source.name)).map((e) => [e.action, e.outcome, e.actor.dbUser]);
  const [a, b] = [db.operators[0]!.user, db.operators[1]!.user];
  for (const step of [
    ['change-request', 'requested', a],
    ['change-request', 'approved', b],
    ['export', 'started', a],
    ['export', 'succeeded', a],
    ['change-request', 'succeeded', a],
  ]) {
    assert.ok(
      steps.some((s) => JSON.stringify(s) === JSON.stringify(step)),
      `${JSON.stringify(step)} in ${JSON.stringify(steps)}`,
    );
  }
  assert.equal((await main.status(source.name)).connector.state, 'RUNNING', 'put back');
});
