// Real parts: the sandbox's Kafka and Connect workers, the tests' PostgreSQL with docs/team.md's
// role split (an admin login, operators alice and bob), each operator a process with its own
// config, state folder and login. A policy set by the admin in the team store binds bob, whose
// context says nothing about approval: a covered rewind becomes a request, an uncovered one
// applies; a stop a policy names is refused; bob cannot set a policy (the database refuses);
// every policy act is in the audit.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectFixture, sortedOffsets, tempDir, uniqueName, type ConnectFixture } from '../support/connect.js';
import { runCli } from '../support/cli.js';
import { newSplitDatabase, type SplitDatabase, type TestLogin } from '../support/postgres.js';

let cluster: ConnectFixture;
let db: SplitDatabase;
before(async () => {
  cluster = await connectFixture();
  db = await newSplitDatabase(2);
});
after(async () => cluster?.cleanup());

/** One person: own config (context prod: this cluster, the team store as their login, no approval), state folder and password. */
async function person(login: TestLogin): Promise<(args: string[], stdin?: string, extra?: NodeJS.ProcessEnv) => ReturnType<typeof runCli>> {
  const dir = tempDir(`offsetctl-policy-${login.user}-`);
  const env = { OFFSETCTL_CONFIG: join(dir, 'config.yaml'), OFFSETCTL_STORE: undefined, OFFSETCTL_URL: undefined, PGPASSWORD: login.password };
  const made = await runCli(['config', 'set-context', 'prod', '--url', cluster.url, '--store', db.url(login)], { env });
  assert.equal(made.status, 0, made.stderr);
  return (args, stdin, extra) => runCli([...args, '--state-dir', join(dir, 'state')], { env: { ...env, ...extra }, ...(stdin !== undefined ? { stdin } : {}) });
}

const target = (file: string, position: number): string => JSON.stringify({ offsets: [{ partition: { filename: file }, offset: { position } }] });

test('a policy set by the admin binds bob: a covered rewind becomes a request, an uncovered one applies, a named stop is refused; bob may not set one', async () => {
  const admin = await person(db.admin);
  const bob = await person(db.operators[1]!);
  const governed = await cluster.createSource(4, { name: uniqueName('gov') });
  const free = await cluster.createSource(4, { name: uniqueName('free') });

  const denied = await bob(['policy', 'set', 'prod', '--require-approval']);
  assert.equal(denied.status, 2, denied.stdout);
  assert.match(denied.stderr, /may not set a policy .*permission denied for table policies.*only the team's admin role may/);
  const bad = await admin(['policy', 'set', 'prod', '--require-approval', '--actions', 'rewind,explode']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--actions: unknown explode/);

  const set = await admin(['policy', 'set', 'prod', '--require-approval', '--connectors', '^gov-']);
  assert.equal(set.status, 0, set.stderr);
  assert.match(set.stdout, /approval required for every offset change of connectors matching \^gov- on kafka:/);
  assert.equal((await admin(['policy', 'set', 'prod', '--require-approval', '--actions', 'stop', '--connectors', '^gov-'])).status, 0);

  // Bob's context says nothing about approval: the store's policy applies all the same.
  const before = sortedOffsets(await cluster.offsets(governed.name));
  const asked = await bob(['rewind', governed.name, '--offsets', '-', '--yes', '-o', 'json'], target(governed.file, 0));
  assert.equal(asked.status, 0, asked.stderr);
  assert.equal((JSON.parse(asked.stdout) as { status: string }).status, 'requested');
  assert.match(asked.stderr, /This change requires approval \(the team's policy: approval required .* \^gov-/);
  assert.deepEqual(sortedOffsets(await cluster.offsets(governed.name)), before, 'nothing changed');
  const direct = await bob(['rewind', free.name, '--offsets', '-', '--yes', '-o', 'json'], target(free.file, 0));
  assert.equal(direct.status, 0, direct.stderr);
  assert.equal((JSON.parse(direct.stdout) as { status: string }).status, 'succeeded');

  const stop = await bob(['stop', governed.name]);
  assert.equal(stop.status, 2, stop.stdout);
  assert.match(stop.stderr, /E_APPROVAL_REQUIRED|requires approval/);
  assert.equal((await cluster.status(governed.name)).connector.state, 'RUNNING');

  const shown = JSON.parse((await bob(['policy', 'show', '-o', 'json'])).stdout) as Array<{ connectors?: string; actions?: string[]; requireApproval: boolean; setBy: { dbUser?: string } }>;
  assert.deepEqual(shown.map((p) => [p.connectors, p.actions, p.requireApproval, p.setBy.dbUser]).sort(), [['^gov-', undefined, true, db.admin.user], ['^gov-', ['stop'], true, db.admin.user]]);
  const audit = (await bob(['audit', '-o', 'json'])).stdout.trim().split('\n').map((l) => JSON.parse(l) as { action: string; outcome: string; connector?: string; actor: { dbUser?: string } });
  assert.deepEqual(audit.filter((e) => e.action === 'policy').map((e) => [e.outcome, e.actor.dbUser]), [
    ['refused', db.operators[1]!.user], ['done', db.admin.user], ['done', db.admin.user],
  ]);
  assert.deepEqual(audit.filter((e) => e.action === 'stop').map((e) => [e.outcome, e.connector]), [['refused', governed.name]]);
});

test('the door enforces it, not the face: applyAudited refuses a covered plan that is not an approved request, audits the refusal, changes nothing; an approved one applies', async () => {
  const { startOpsContext } = await import('../support/ops-context.js');
  const { applyAudited, planRewind } = await import('../../src/ops/index.js');
  const t = await startOpsContext('offsetctl-policy-door-');
  try {
    const source = await t.cluster.createSource(3, { name: uniqueName('door') });
    const plan = await planRewind(t.ctx, { connector: source.name, offsets: [{ partition: { filename: source.file }, offset: { position: 0 } }] });
    await t.ctx.store.setPolicy({ clusterKey: plan.clusterKey, requireApproval: true, actions: ['rewind'] });
    const scope = { actor: { user: 'face-that-forgot@test', via: 'cli' as const } };
    const before = sortedOffsets(await t.cluster.offsets(source.name));
    await assert.rejects(applyAudited(t.ctx, plan, scope), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'E_APPROVAL_REQUIRED');
      assert.match(err.message, /requires approval \(approval required for rewind of every connector/);
      return true;
    });
    assert.deepEqual(sortedOffsets(await t.cluster.offsets(source.name)), before);
    assert.deepEqual((await t.ctx.store.listRuns({ connector: source.name })).length, 0, 'no run opened');
    const refused = (await t.ctx.store.listAudit({ connector: source.name })).map((e) => [e.action, e.outcome]);
    assert.deepEqual(refused, [['rewind', 'refused']]);
    const applied = await applyAudited(t.ctx, plan, scope, { reviewed: { planDigest: 'd', requestId: 'chg-approved' } });
    assert.equal(applied.status, 'succeeded', applied.message);
  } finally {
    await t.close();
  }
});

test('the console on the team store: a confirmed change a policy covers becomes a change request; nothing changes', async () => {
  const { startUi } = await import('../web/browser.js');
  const bob = db.operators[1]!;
  const source = await cluster.createSource(3, { name: uniqueName('gov') });
  const admin = await person(db.admin);
  assert.equal((await admin(['policy', 'set', 'prod', '--require-approval', '--connectors', '^gov-'])).status, 0);
  const ui = await startUi(['--url', cluster.url, '--store', db.url(bob), '--state-dir', tempDir('offsetctl-policy-ui-')], { PGPASSWORD: bob.password, OFFSETCTL_STORE: undefined, OFFSETCTL_CONFIG: join(tempDir('offsetctl-policy-cfg-'), 'none.yaml') });
  try {
    const login = await fetch(ui.loginUrl, { redirect: 'manual' });
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
    // The starting connection of a console started with --url: /ctx/-/.
    const page = await (await fetch(`${ui.base}/ctx/-/connectors/${encodeURIComponent(source.name)}/change`, { headers: { cookie } })).text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
    const form = (fields: Record<string, string>): URLSearchParams => new URLSearchParams({ csrf, ...fields });
    const preview = await (await fetch(`${ui.base}/ctx/-/connectors/${encodeURIComponent(source.name)}/preview`, {
      method: 'POST', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: form({ mode: 'json', resumeAfter: 'auto', offsets: target(source.file, 0) }),
    })).text();
    assert.match(preview, /Request approval/);
    const planId = /action="\/ctx\/-\/plans\/([^/"]+)\/apply"/.exec(preview)?.[1];
    assert.ok(planId, preview.slice(0, 2000));
    const before = sortedOffsets(await cluster.offsets(source.name));
    const applied = await fetch(`${ui.base}/ctx/-/plans/${planId}/apply`, {
      method: 'POST', redirect: 'manual', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: form({ confirm: source.name }),
    });
    assert.equal(applied.status, 303);
    assert.match(applied.headers.get('location') ?? '', /^\/ctx\/-\/changes\/chg-/);
    assert.deepEqual(sortedOffsets(await cluster.offsets(source.name)), before, 'nothing changed');
  } finally {
    await ui.stop();
  }
});

test('runs abandon goes through the door: under a policy naming abandon, bob\'s abandon is a change request (the run stays, locked); ' +
  'alice approves, bob applies it: abandoned through abandonAudited, the lock freed, audited', async () => {
  const admin = await person(db.admin);
  const alice = await person(db.operators[0]!);
  const bob = await person(db.operators[1]!);
  const src = await cluster.createSource(4, { name: uniqueName('abn') });
  assert.equal((await admin(['policy', 'set', 'prod', '--require-approval', '--actions', 'abandon', '--connectors', '^abn-'])).status, 0);
  // Bob's rewind dies before its change step with a 2 s lease: the run reads interrupted soon after.
  const killed = await bob(['rewind', src.name, '--offsets', '-', '--yes'], target(src.file, 0), { OFFSETCTL_TEST_KILL_BEFORE_STEP: 'rewindOffsets', OFFSETCTL_STORE_LEASE_SECONDS: '2' });
  assert.notEqual(killed.status, 0);
  const runs = JSON.parse((await bob(['runs', '-o', 'json'])).stdout) as Array<{ id: string; connector: string; status: string }>;
  const run = runs.find((r) => r.connector === src.name);
  assert.ok(run, killed.stderr);
  await new Promise((r) => setTimeout(r, 3000));

  const asked = await bob(['runs', 'abandon', run.id, '--reason', 'clearing up', '--yes']);
  assert.equal(asked.status, 0, asked.stderr);
  assert.match(asked.stdout, /This change requires approval \(the team's policy: approval required for abandon of connectors matching \^abn-.*change request (chg-\S+) \(abandon of abn-/s);
  const id = /change request (chg-\S+) \(abandon of /.exec(asked.stdout)![1]!;
  const status = async (): Promise<string> => (JSON.parse((await bob(['runs', 'show', run.id, '-o', 'json'])).stdout) as { status: string }).status;
  assert.equal(await status(), 'interrupted', 'not abandoned');
  const listed = JSON.parse((await alice(['changes', 'list', '-o', 'json'])).stdout) as Array<{ id: string; operation: string; status: string; connectors: string[] }>;
  assert.deepEqual(listed.filter((r) => r.id === id).map((r) => [r.operation, r.status, r.connectors]), [['abandon', 'pending', [src.name]]]);
  const early = await bob(['changes', 'apply', id, '--yes']);
  assert.equal(early.status, 2, early.stdout);
  assert.match(early.stderr, /is pending.*not approved/);
  const own = await bob(['changes', 'approve', id]);
  assert.equal(own.status, 2);
  assert.match(own.stderr, /who is you/);
  assert.equal((await alice(['changes', 'approve', id])).status, 0);
  const applied = await bob(['changes', 'apply', id, '--yes']);
  assert.equal(applied.status, 0, applied.stderr);
  assert.match(applied.stdout, /abandoned by .*change request chg-.*The lock on abn-\S+ is free/);
  assert.equal((JSON.parse((await bob(['runs', 'show', run.id, '-o', 'json'])).stdout) as { status: string }).status, 'abandoned');
  const after = JSON.parse((await alice(['changes', 'list', '-o', 'json'])).stdout) as Array<{ id: string; status: string }>;
  assert.equal(after.find((r) => r.id === id)?.status, 'applied');
  const again = await bob(['changes', 'apply', id, '--yes']);
  assert.equal(again.status, 2, 'applied once');
  const audit = (await alice(['audit', '-o', 'json'])).stdout.trim().split('\n').map((l) => JSON.parse(l) as { action: string; outcome: string; connector?: string; runId?: string; actor: { dbUser?: string } });
  const [a, b] = [db.operators[0]!.user, db.operators[1]!.user];
  assert.deepEqual(audit.filter((e) => e.action === 'abandon' && e.connector === src.name).map((e) => [e.outcome, e.actor.dbUser]), [
    ['refused', b], ['started', b], ['succeeded', b], ['refused', b], // the early apply and the second one are refusals
  ]);
  const steps = audit.filter((e) => e.action === 'change-request' && e.connector === src.name).map((e) => [e.outcome, e.actor.dbUser]);
  for (const step of [['requested', b], ['approved', a], ['succeeded', b]]) assert.ok(steps.some((s) => JSON.stringify(s) === JSON.stringify(step)), JSON.stringify(steps));
  // Resumed by nobody: the connector stays as bob's run left it; put it back for the next test.
  await cluster.resume(src.name).catch(() => undefined);
});

test('the door refuses an abandon that is not an approved request being applied (a face that forgot, or a made-up id); nothing recorded', async () => {
  const { startOpsContext } = await import('../support/ops-context.js');
  const { abandonAudited } = await import('../../src/ops/index.js');
  const t = await startOpsContext('offsetctl-policy-abandon-door-');
  try {
    const source = await t.cluster.createSource(3, { name: uniqueName('abd') });
    const run = await t.ctx.store.beginRun({
      clusterUrl: t.ctx.url, clusterKey: 'kafka:test-abandon-door', connector: source.name, operation: 'rewind', workflowFile: 'x', workflowId: 'x', inputs: {}, context: {},
    });
    await t.ctx.store.setPolicy({ clusterKey: run.clusterKey, requireApproval: true, actions: ['abandon'] });
    // The door checks the policy before the run's state: the plan as planAbandon makes it for an interrupted run.
    const plan = { run, liveState: 'RUNNING' };
    const scope = { actor: { user: 'face-that-forgot@test', via: 'cli' as const } };
    for (const requestId of [undefined, 'chg-made-up']) {
      await assert.rejects(abandonAudited(t.ctx, scope, plan, { by: 'x', reason: 'y' }, requestId), (err: Error & { code?: string }) => {
        assert.equal(err.code, 'E_APPROVAL_REQUIRED');
        assert.match(err.message, /abandon of abd-.*requires approval .*runs abandon/);
        return true;
      });
    }
    assert.equal((await t.ctx.store.getRun(run.id)).status, 'running', 'not abandoned');
    assert.deepEqual((await t.ctx.store.listAudit({ connector: source.name })).map((e) => [e.action, e.outcome]), [['abandon', 'refused'], ['abandon', 'refused']]);
  } finally {
    await t.close();
  }
});

test('rollback of an imported connector goes through the door: under a policy covering rollback bob\'s undo is a change request (the connector stays); ' +
  'alice approves, bob applies it: deleted through rollbackImportAudited, audited; the door refuses it without the request', {
  timeout: 240_000,
}, async () => {
  const admin = await person(db.admin);
  const alice = await person(db.operators[0]!);
  const bob = await person(db.operators[1]!);
  const source = await cluster.createSource(3, { name: uniqueName('imr') });
  const exported = await bob(['export', source.name]);
  assert.equal(exported.status, 0, exported.stderr);
  const file = join(tempDir('offsetctl-policy-backup-'), 'backup.yaml');
  writeFileSync(file, exported.stdout);
  await cluster.deleteConnector(source.name);
  const imported = await bob(['import', file, '--to', 'prod', '--allow-duplicate-source', '--yes']);
  assert.equal(imported.status, 0, imported.stderr);
  assert.equal((await cluster.status(source.name)).connector.state, 'RUNNING');

  assert.equal((await admin(['policy', 'set', 'prod', '--require-approval', '--actions', 'rollback', '--connectors', '^imr-'])).status, 0);
  const asked = await bob(['rollback', source.name, '--yes']);
  assert.equal(asked.status, 0, asked.stderr);
  assert.match(asked.stdout, /This change requires approval \(the team's policy: approval required for rollback of connectors matching \^imr-.*nothing was changed/s);
  const id = /change request (chg-\S+) \(rollback of /.exec(asked.stdout)?.[1];
  assert.ok(id, asked.stdout);
  assert.equal((await cluster.status(source.name)).connector.state, 'RUNNING', 'not deleted, not stopped');
  const shown = await alice(['changes', 'show', id]);
  assert.match(shown.stdout, /undo of the import run run-\S+: imr-\S+ deleted from/);

  // The door itself: the undo without the request (a face that forgot, or a made-up id) is refused, audited, nothing deleted.
  const { PostgresStore } = await import('../../src/store/postgres/index.js');
  const { pgSettings } = await import('../../src/store/postgres/connection.js');
  const { HttpClient } = await import('../../src/http/client.js');
  const { importToUndo, rollbackImportAudited } = await import('../../src/ops/move/index.js');
  const store = new PostgresStore(pgSettings(db.url(db.operators[1]!), { passwordEnv: 'P', env: { P: db.operators[1]!.password } }));
  const http = new HttpClient();
  try {
    const ctx = { url: cluster.url, http, store };
    const runs = await store.listRuns({ connector: source.name });
    const toUndo = await importToUndo(ctx, [runs[0]!.clusterKey], source.name);
    assert.ok(toUndo);
    for (const requestId of [undefined, 'chg-made-up', id]) {
      await assert.rejects(rollbackImportAudited(ctx, toUndo.clusterKey, toUndo, { actor: { user: 'face-that-forgot@test', via: 'cli' as const } }, {}, requestId), /E_APPROVAL_REQUIRED|requires approval/);
    }
  } finally {
    await store.close();
    await http.close();
  }
  assert.equal((await cluster.status(source.name)).connector.state, 'RUNNING', 'still not deleted');

  assert.equal((await bob(['changes', 'approve', id])).status, 2, 'not by the requester');
  assert.equal((await alice(['changes', 'approve', id])).status, 0);
  const applied = await bob(['changes', 'apply', id, '--yes']);
  assert.equal(applied.status, 0, applied.stderr + applied.stdout);
  assert.equal((await cluster.request('GET', `/connectors/${source.name}`)).status, 404, 'the import undone: deleted');
  const again = await bob(['changes', 'apply', id, '--yes']);
  assert.equal(again.status, 2, 'applied once');
  const audit = (await bob(['audit', '-o', 'json'])).stdout.trim().split('\n').map((l) => JSON.parse(l) as { action: string; outcome: string; connector?: string; actor: { user?: string; dbUser?: string } });
  const [a, b] = [db.operators[0]!.user, db.operators[1]!.user];
  assert.deepEqual(audit.filter((e) => e.action === 'rollback' && e.connector === source.name).map((e) => [e.outcome, e.actor.dbUser ?? e.actor.user]), [
    // The door, thrice (no request, a made-up one, one not being applied), under the face's actor.
    ['refused', 'face-that-forgot@test'], ['refused', 'face-that-forgot@test'], ['refused', 'face-that-forgot@test'],
    ['started', b], ['succeeded', b], ['refused', b], // applied, then applied again: refused
  ]);
  const steps = audit.filter((e) => e.action === 'change-request' && e.connector === source.name).map((e) => [e.outcome, e.actor.dbUser]);
  for (const step of [['requested', b], ['approved', a], ['succeeded', b]]) assert.ok(steps.some((x) => JSON.stringify(x) === JSON.stringify(step)), JSON.stringify(steps));
});
