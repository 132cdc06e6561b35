// Four-eyes approval on the sandbox and the tests' real PostgreSQL: two operators, alice and bob,
// each with their own database login, their own config file whose context says `approval:
// required`, and their own state folder. A change by alice becomes a request in the team store;
// alice cannot approve it (the store authenticates her as its requester), bob can; then alice
// applies it and the request's history names each act with its database user. A rejected and an
// expired request are refused.
// Real parts: the sandbox's Kafka broker and Connect cluster, a real PostgreSQL, a SQLite store file, spawns the CLI.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { connectFixture, sortedOffsets, tempDir, type ConnectFixture } from '../support/connect.js';
import { runCli, type CliResult } from '../support/cli.js';
import { addOperator, newDatabase, type TestDatabase, type TestLogin } from '../support/postgres.js';
import { PostgresStore } from '../../src/store/postgres/index.js';
import { pgSettings } from '../../src/store/postgres/connection.js';
import { HttpClient } from '../../src/http/client.js';
import { planRewind, requestChange, savePlan } from '../../src/ops/index.js';

let cluster: ConnectFixture;
let db: TestDatabase;
let alice: TestLogin;
let bob: TestLogin;

before(async () => {
  cluster = await connectFixture();
  db = await newDatabase('review');
  alice = db.owner;
  bob = await addOperator(db);
});
after(async () => cluster?.cleanup());

type Operator = ((args: string[], more?: { stdin?: string }) => Promise<CliResult>) & { env: NodeJS.ProcessEnv };

/** One operator: a config file with the context `prod` (approval: required, the team store as that login), own state folder and password. */
async function operator(login: TestLogin): Promise<Operator> {
  const dir = tempDir(`offsetctl-review-${login.user}-`);
  const env = { OFFSETCTL_CONFIG: join(dir, 'config.yaml'), OFFSETCTL_STORE: undefined, OFFSETCTL_URL: undefined, PGPASSWORD: login.password };
  const made = await runCli(['config', 'set-context', 'prod', '--url', cluster.url, '--store', db.urlFor(login), '--require-approval'], { env });
  assert.equal(made.status, 0, made.stderr);
  return Object.assign((args: string[], more: { stdin?: string } = {}) => runCli([...args, '--state-dir', dir], { env, ...(more.stdin !== undefined ? { stdin: more.stdin } : {}) }), { env });
}

const target = (file: string, position: number): string => JSON.stringify({ offsets: [{ partition: { filename: file }, offset: { position } }] });

interface RequestJson { id: string; status: string; requestedBy: string; last?: { action: string; by: string; runIds?: string[]; reason?: string } }

test('a request made by alice is refused for her own approval, approved by bob, then applied by alice; its history and `offsetctl audit` name each act and database user', async () => {
  const a = await operator(alice);
  const b = await operator(bob);
  const source = await cluster.createSource(6);
  const before = await cluster.offsets(source.name);
  const contexts = JSON.parse((await runCli(['config', 'get-contexts', '-o', 'json'], { env: a.env })).stdout) as Array<{ name: string; approval?: string }>;
  assert.equal(contexts.find((c) => c.name === 'prod')?.approval, 'required');

  // The change command records a request; --yes does not bypass approval, and nothing changes.
  const asked = await a(['rewind', source.name, '--offsets', '-', '--yes', '-o', 'json'], { stdin: target(source.file, 0) });
  assert.equal(asked.status, 0, asked.stderr);
  const { request } = JSON.parse(asked.stdout) as { status: string; request: { id: string; requestedBy: string; status: string } };
  assert.equal(request.status, 'pending');
  assert.equal(request.requestedBy, alice.user);
  assert.match(asked.stderr, /requires approval: change request chg-.* recorded .* nothing was changed/);
  assert.deepEqual(sortedOffsets(await cluster.offsets(source.name)), sortedOffsets(before));
  assert.deepEqual(JSON.parse((await b(['runs', '-o', 'json'])).stdout), []);

  // Alice may not approve her own request, and cannot apply it unapproved.
  const self = await a(['changes', 'approve', request.id]);
  assert.equal(self.status, 2, self.stderr);
  assert.match(self.stderr, new RegExp(`was made by ${alice.user}, who is you \\(${alice.user}, database user ${alice.user}\\): a change needs the approval of someone else`));
  const early = await a(['changes', 'apply', request.id, '--yes']);
  assert.equal(early.status, 2, early.stderr);
  assert.match(early.stderr, /is pending, not approved: it needs the approval of someone other than its requester/);

  // Bob sees it, with its diff, and approves it.
  const listed = JSON.parse((await b(['changes', 'list', '--status', 'pending', '-o', 'json'])).stdout) as RequestJson[];
  assert.deepEqual(listed.map((r) => [r.id, r.requestedBy]), [[request.id, alice.user]]);
  const shown = await b(['changes', 'show', request.id]);
  assert.equal(shown.status, 0, shown.stderr);
  assert.match(shown.stdout, /→ \{"position":0\}/);
  const approved = await b(['changes', 'approve', request.id]);
  assert.equal(approved.status, 0, approved.stderr);
  assert.match(approved.stdout, new RegExp(`approved by ${bob.user} \\(requested by ${alice.user}\\)`));
  const twice = await b(['changes', 'approve', request.id]);
  assert.equal(twice.status, 2);
  assert.match(twice.stderr, new RegExp(`is approved \\(approved by ${bob.user}`));

  // Alice applies it: checked again, snapshot first, the very plan that was approved.
  const applied = await a(['changes', 'apply', request.id, '--yes']);
  assert.equal(applied.status, 0, applied.stderr);
  assert.match(applied.stdout, new RegExp(`Change request ${request.id}: rewind of ${source.name}`));
  assert.deepEqual((await cluster.offsets(source.name)).offsets[0]?.offset, { position: 0 });
  const [run] = JSON.parse((await b(['runs', '--connector', source.name, '-o', 'json'])).stdout) as Array<{ id: string; status: string; actor: { dbUser: string } }>;
  assert.equal(run?.status, 'succeeded');
  assert.equal(run?.actor.dbUser, alice.user);
  const runJson = JSON.parse((await b(['runs', 'show', run!.id, '-o', 'json'])).stdout) as { context: { requestId?: string; snapshotId?: string } };
  assert.equal(runJson.context.requestId, request.id);
  assert.ok(runJson.context.snapshotId);
  // The run's evidence, for an auditor offline: digests of the offsets before and after, who
  // approved it, and its audit entries in a chain that verifies.
  const shownEvidence = await b(['runs', 'show', run!.id, '--evidence']);
  assert.equal(shownEvidence.status, 0, shownEvidence.stderr);
  const evidence = JSON.parse(shownEvidence.stdout) as {
    plan: { inputsDigest: string; requestId?: string }; offsets: { before?: { snapshotId: string; digest: string }; after?: { digest: string; step: string } };
    approvals: Array<{ action: string; actor: { dbUser?: string } }>; audit: Array<{ action: string; outcome: string; digest: string | null }>; chain: { ok: boolean };
  };
  assert.equal(evidence.plan.requestId, request.id);
  assert.equal(evidence.offsets.before?.snapshotId, runJson.context.snapshotId);
  assert.equal(evidence.offsets.after?.step, 'verifyOffsets');
  assert.notEqual(evidence.offsets.before?.digest, evidence.offsets.after?.digest, 'the offsets changed');
  assert.deepEqual(evidence.approvals.slice(0, 2).map((a) => [a.action, a.actor.dbUser]), [['requested', alice.user], ['approved', bob.user]]);
  assert.deepEqual(evidence.audit.map((e) => [e.action, e.outcome]), [['rewind', 'started'], ['rewind', 'succeeded'], ['change-request', 'succeeded']]);
  assert.ok(evidence.audit.every((e) => /^[0-9a-f]{64}$/.test(e.digest ?? '')));
  assert.equal(evidence.chain.ok, true);

  const history = JSON.parse((await b(['changes', 'show', request.id, '-o', 'json'])).stdout) as { status: string; history: Array<{ action: string; actor: { user: string; dbUser: string }; runIds?: string[] }> };
  assert.equal(history.status, 'applied');
  assert.deepEqual(history.history.map((h) => [h.action, h.actor.dbUser]), [['requested', alice.user], ['approved', bob.user], ['applying', alice.user], ['applied', alice.user]]);
  assert.deepEqual(history.history.at(-1)?.runIds, [run!.id]);
  // Applied once: a second apply is refused.
  const again = await a(['changes', 'apply', request.id, '--yes']);
  assert.equal(again.status, 2);
  assert.match(again.stderr, /is applied/);

  // The audit trail: every act with the database user who did it (read by bob: one trail for all).
  const audit = await b(['audit', '--connector', source.name, '-o', 'json']);
  assert.equal(audit.status, 0, audit.stderr);
  const entries = audit.stdout.trim().split('\n').map((l) => JSON.parse(l) as { action: string; outcome: string; actor: { user: string; dbUser?: string; via: string }; message?: string; runId?: string });
  assert.deepEqual(entries.map((e) => [e.action, e.outcome, e.actor.user, e.actor.dbUser]), [
    ['change-request', 'requested', alice.user, alice.user],
    ['change-request', 'refused', alice.user, alice.user],
    ['rewind', 'refused', alice.user, alice.user],
    ['change-request', 'approved', bob.user, bob.user],
    ['change-request', 'refused', bob.user, bob.user],
    ['change-request', 'started', alice.user, alice.user],
    ['rewind', 'started', alice.user, alice.user],
    ['rewind', 'succeeded', alice.user, alice.user],
    ['change-request', 'succeeded', alice.user, alice.user],
    ['rewind', 'refused', alice.user, alice.user],
  ]);
  assert.match(entries[1]!.message!, new RegExp(`change request ${request.id} \\(rewind of ${source.name}\\) refused: approve refused: .*who is you`));
  assert.match(entries[2]!.message!, /is pending, not approved/);
  assert.equal(entries[7]!.runId, run!.id);
  assert.equal(entries[8]!.runId, run!.id);
});


test('a batch request (--selector) is approved and applied as one: one request, one approval, a run per connector', async () => {
  const a = await operator(alice);
  const b = await operator(bob);
  const first = await cluster.createSource(3);
  const second = await cluster.createSource(3);
  const selector = `^(${first.name}|${second.name})$`;
  const asked = await a(['reset', '--selector', selector, '--yes', '-o', 'json']);
  assert.equal(asked.status, 0, asked.stderr);
  const { request } = JSON.parse(asked.stdout) as { request: { id: string; status: string } };
  assert.equal(request.status, 'pending');
  const shown = JSON.parse((await b(['changes', 'show', request.id, '-o', 'json'])).stdout) as { connectors: string[] };
  assert.deepEqual([...shown.connectors].sort(), [first.name, second.name].sort());
  assert.equal((await b(['changes', 'approve', request.id])).status, 0);
  const applied = await a(['changes', 'apply', request.id, '--yes']);
  assert.equal(applied.status, 0, applied.stderr + applied.stdout);
  const history = JSON.parse((await b(['changes', 'show', request.id, '-o', 'json'])).stdout) as { status: string; history: Array<{ action: string; runIds?: string[] }> };
  assert.equal(history.status, 'applied');
  assert.deepEqual(history.history.map((h) => h.action), ['requested', 'approved', 'applying', 'applied'], 'one approval for both');
  const runIds = history.history.at(-1)?.runIds ?? [];
  assert.equal(runIds.length, 2);
  for (const name of [first.name, second.name]) {
    const [run] = JSON.parse((await b(['runs', '--connector', name, '-o', 'json'])).stdout) as Array<{ id: string; status: string; operation: string }>;
    assert.deepEqual([run?.operation, run?.status, runIds.includes(run!.id)], ['reset', 'succeeded', true], name);
  }
});

test('a rejected request and an expired one are refused', async () => {
  const a = await operator(alice);
  const b = await operator(bob);
  const source = await cluster.createSource(4);
  const before = await cluster.offsets(source.name);
  const asked = await a(['reset', source.name, '-o', 'json']);
  assert.equal(asked.status, 0, asked.stderr);
  const { request } = JSON.parse(asked.stdout) as { request: { id: string } };
  const noReason = await b(['changes', 'reject', request.id, '--reason', '  ']);
  assert.equal(noReason.status, 2);
  assert.match(noReason.stderr, /needs a reason \(--reason "\.\.\."\)/);
  const rejected = await b(['changes', 'reject', request.id, '--reason', 'not during the sale']);
  assert.equal(rejected.status, 0, rejected.stderr);
  const refused = await a(['changes', 'apply', request.id, '--yes']);
  assert.equal(refused.status, 2);
  assert.match(refused.stderr, new RegExp(`is rejected \\(rejected by ${bob.user} at .*: not during the sale\\)`));

  // A request made 25 hours ago (by alice, through the ops API on her login) has expired.
  const http = new HttpClient();
  const store = new PostgresStore(pgSettings(db.urlFor(alice), { passwordEnv: 'P', env: { P: alice.password } }));
  let old: string;
  try {
    const ctx = { url: cluster.url, http, store };
    const past = new Date(Date.now() - 25 * 3_600_000);
    const plan = await planRewind(ctx, { connector: source.name, offsets: JSON.parse(target(source.file, 0)) });
    old = (await requestChange(ctx, savePlan([plan], { plannedBy: { user: alice.user, via: 'cli' }, now: past }), { now: past })).id;
  } finally {
    await store.close();
    await http.close();
  }
  const listed = JSON.parse((await b(['changes', 'list', '-o', 'json'])).stdout) as RequestJson[];
  assert.equal(listed.find((r) => r.id === old)?.status, 'expired');
  const late = await b(['changes', 'approve', old]);
  assert.equal(late.status, 2, late.stderr);
  assert.match(late.stderr, new RegExp(`change request ${old} expired at .* \\(requested by ${alice.user}`));
  assert.deepEqual(sortedOffsets(await cluster.offsets(source.name)), sortedOffsets(before));
  assert.deepEqual(JSON.parse((await b(['runs', '--connector', source.name, '-o', 'json'])).stdout), []);
});
