// Two operators, one team store: the sandbox's real broker and two Connect workers, the tests'
// real PostgreSQL, and two offsetctl processes per case with separate state folders and separate
// database logins (alice and bob, members of the team's role). Each gets its password from its
// own PGPASSWORD; none may ever show it.
// Real parts: the sandbox's Kafka broker and Connect cluster, a real PostgreSQL, Chromium, a SQLite store file, spawns the CLI.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ConnectFixture, connectFixture, sortedOffsets, tempDir, waitFor } from '../support/connect.js';
import { runCli, type CliResult } from '../support/cli.js';
import { addOperator, adminPool, newDatabase, type TestDatabase, type TestLogin } from '../support/postgres.js';
import { startPgServer, stopPgServer } from '../../src/sandbox/postgres-server.js';
import { startService, startUi } from '../web/browser.js';
import { PROXY_SIGN_IN } from '../support/console-yaml.js';

let w1: ConnectFixture;
let w2: ConnectFixture;
let db: TestDatabase;
let alice: TestLogin;
let bob: TestLogin;
const outputs: CliResult[] = [];
const stateDirs: string[] = [];

before(async () => {
  [w1, w2] = await Promise.all([connectFixture(0), connectFixture(1)]);
  db = await newDatabase('team');
  alice = db.owner;
  bob = await addOperator(db);
});
after(async () => {
  await w1?.cleanup();
  await w2?.cleanup();
});

/** One operator: own state folder, own login and password, the team store by --store. */
function operator(login: TestLogin, env: NodeJS.ProcessEnv = {}): (args: string[], more?: { stdin?: string; env?: NodeJS.ProcessEnv }) => Promise<CliResult> {
  const stateDir = tempDir(`offsetctl-${login.user}-`);
  stateDirs.push(stateDir);
  return async (args, more = {}) => {
    const r = await runCli([...args, '--store', db.urlFor(login), '--state-dir', stateDir], {
      ...(more.stdin !== undefined ? { stdin: more.stdin } : {}),
      env: { OFFSETCTL_STORE: undefined, PGPASSWORD: login.password, OFFSETCTL_STORE_LEASE_SECONDS: '3', ...env, ...more.env },
    });
    outputs.push(r);
    return r;
  };
}

const target = (file: string, position: number): string => JSON.stringify({ offsets: [{ partition: { filename: file }, offset: { position } }] });

test('A rewinds through worker 1 leaving the connector STOPPED; B rolls it back through worker 2: offsets exactly as before', async () => {
  const a = operator(alice);
  const b = operator(bob);
  const source = await w1.createSource(5);
  const before = await w1.offsets(source.name);
  const rewind = await a(['rewind', source.name, '--offsets', '-', '--yes', '--leave-stopped', '--output', 'json', '--url', w1.url], { stdin: target(source.file, 0) });
  assert.equal(rewind.status, 0, rewind.stderr);
  const outcome = JSON.parse(rewind.stdout) as { runId: string; snapshotId: string; connectorState: string };
  assert.equal(outcome.connectorState, 'STOPPED');
  // Everyone sees everything: B lists A's run and snapshot, and who did it.
  const runs = JSON.parse((await b(['runs', '--output', 'json'])).stdout) as Array<{ id: string; actor: { user: string; dbUser: string } }>;
  const mine = runs.find((r) => r.id === outcome.runId);
  assert.equal(mine?.actor.dbUser, alice.user);
  const shown = await b(['runs', 'show', outcome.runId]);
  assert.match(shown.stdout, new RegExp(`started by  ${alice.user}@`));
  assert.match((await b(['snapshots', source.name])).stdout, new RegExp(outcome.snapshotId));
  const rollback = await b(['rollback', source.name, '--yes', '--url', w2.url]);
  assert.equal(rollback.status, 0, rollback.stderr);
  assert.match(rollback.stdout, new RegExp(`restored snapshot ${outcome.snapshotId}`));
  await w1.waitRunning(source.name);
  assert.deepEqual(sortedOffsets(await w2.offsets(source.name)), sortedOffsets(before));
  const last = JSON.parse((await a(['runs', '--connector', source.name, '--output', 'json'])).stdout) as Array<{ operation: string; actor: { dbUser: string } }>;
  assert.deepEqual(last.map((r) => [r.operation, r.actor.dbUser]), [['rollback', bob.user], ['rewind', alice.user]]);
});

test('A and B start a rewind of one connector at the same moment through different workers: one proceeds, the other exits 2 naming the holder', async () => {
  const source = await w1.createSource(3);
  const release = join(tempDir('offsetctl-release-'), 'go');
  const hold = { OFFSETCTL_TEST_PAUSE_BEFORE_STEP: 'rewindOffsets', OFFSETCTL_TEST_RELEASE_FILE: release };
  const a = operator(alice, hold);
  const b = operator(bob, hold);
  const runs = [
    // Left STOPPED, so the winner's offset is still there to read (resumed, the source would read
    // its file to the end again and commit that, which a loaded CI saw first).
    a(['rewind', source.name, '--offsets', '-', '--yes', '--leave-stopped', '--url', w1.url], { stdin: target(source.file, 1) }),
    b(['rewind', source.name, '--offsets', '-', '--yes', '--leave-stopped', '--url', w2.url], { stdin: target(source.file, 2) }),
  ];
  // The loser is refused when it opens its run; the winner holds the lock at its pause until released.
  const loser = await Promise.race(runs.map((p, i) => p.then((r) => ({ r, i }))));
  try {
    assert.equal(loser.r.status, 2, loser.r.stderr);
    const winner = loser.i === 0 ? bob : alice;
    assert.match(loser.r.stderr, new RegExp(`E_LOCKED.*busy: run run-\\S+ of ${winner.user}@\\S+ \\(pid \\d+ on \\S+, since \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z, lease until`));
    // Nor may the loser take the winner's live run over with runs resume: refused before the diff.
    const held = /busy: run (run-\S+) of/.exec(loser.r.stderr)![1]!;
    const resume = await (loser.i === 0 ? a : b)(['runs', 'resume', held, '--yes', '--url', w2.url]);
    assert.equal(resume.status, 2, resume.stderr);
    assert.match(resume.stderr, new RegExp(`run ${held} is not interrupted: ${winner.user}@\\S+ \\(pid \\d+ on \\S+, lease until .*\\) is working on it`));
  } finally {
    writeFileSync(release, '');
  }
  const done = await runs[1 - loser.i]!;
  assert.equal(done.status, 0, done.stderr);
  await w1.waitForStopped(source.name);
  assert.deepEqual(sortedOffsets(await w1.offsets(source.name)).map((o) => o.offset), [{ position: loser.i === 0 ? 2 : 1 }]);
});

test('A is killed with SIGKILL once the connector is STOPPED; B finishes the run with `runs resume`, saying whose run it was', async () => {
  const a = operator(alice, { OFFSETCTL_TEST_KILL_BEFORE_STEP: 'rewindOffsets' });
  const b = operator(bob);
  const source = await w1.createSource(4);
  const killed = await a(['rewind', source.name, '--offsets', '-', '--yes', '--url', w1.url], { stdin: target(source.file, 0) });
  assert.equal(killed.signal, 'SIGKILL');
  assert.equal((await w2.status(source.name)).connector.state, 'STOPPED');
  // Once A's lease (3 s here) has passed by the database's clock, its run reads interrupted for everyone.
  const run = await waitFor('A\'s run to read interrupted', async () => {
    const list = JSON.parse((await b(['runs', '--connector', source.name, '--output', 'json'])).stdout) as Array<{ id: string; status: string }>;
    return list.find((r) => r.status === 'interrupted');
  }, 60_000, 500);
  const status = await b(['store', 'status']);
  assert.match(status.stdout, new RegExp(`${source.name} .*${run.id} +${alice.user}@.*holder gone \\(interrupted\\)`));
  const resumed = await b(['runs', 'resume', run.id, '--yes', '--url', w2.url]);
  assert.equal(resumed.status, 0, resumed.stderr);
  assert.match(resumed.stdout, new RegExp(`taking over run ${run.id} of ${alice.user}@`));
  await w1.waitRunning(source.name);
  assert.deepEqual(sortedOffsets(await w1.offsets(source.name)).map((o) => o.offset), [{ position: 0 }]);
  const shown = await a(['runs', 'show', run.id]);
  assert.match(shown.stdout, /status +succeeded/);
  assert.match(shown.stdout, new RegExp(`resumed by  ${bob.user}@.*taking it over from ${alice.user}@`));
});

test('a batch on the team store, and the web console of another operator showing it', async () => {
  const a = operator(alice);
  const prefix = `team-batch-${Date.now().toString(36)}`;
  const sources = [await w1.createSource(2, { fileName: `${prefix}-1.txt` }), await w1.createSource(2, { fileName: `${prefix}-2.txt` })];
  const renamed = sources.map((s) => s.name);
  const selector = `^(${renamed.map((n) => n.replace(/[-.]/g, '\\$&')).join('|')})$`;
  const r = await a(['reset', '--selector', selector, '--yes', '--output', 'json', '--url', w1.url]);
  assert.equal(r.status, 0, r.stderr);
  const summary = JSON.parse(r.stdout) as { batchId: string; counts: { succeeded: number } };
  assert.equal(summary.counts.succeeded, 2);
  const b = operator(bob);
  const batch = JSON.parse((await b(['runs', '--batch', summary.batchId, '--output', 'json'])).stdout) as Array<{ id: string; actor: { dbUser: string } }>;
  assert.equal(batch.length, 2);
  assert.ok(batch.every((x) => x.actor.dbUser === alice.user));
  // Bob's console on the same store, through the cluster's other worker, lists alice's runs made
  // through worker 1: the console lists a cluster's runs by its identity, as the CLI finds them.
  const ui = await startUi(['--url', w2.url, '--store', db.urlFor(bob), '--state-dir', tempDir('offsetctl-ui-')], { PGPASSWORD: bob.password, OFFSETCTL_STORE: undefined });
  try {
    const login = await fetch(ui.loginUrl, { redirect: 'manual' });
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
    const page = await (await fetch(`${ui.base}/runs`, { headers: { cookie } })).text();
    for (const run of batch) assert.ok(page.includes(run.id), `the console through ${w2.url} lists ${run.id}, made through ${w1.url}`);
    const connectorPage = await (await fetch(`${ui.base}/connectors/${encodeURIComponent(renamed[0]!)}`, { headers: { cookie } })).text();
    assert.ok(batch.some((run) => connectorPage.includes(run.id)), 'the connector page lists its last runs too');
    assert.ok(!ui.output().includes(bob.password));
  } finally {
    await ui.stop();
  }
});

test('the console as the team\'s service on the team store: a change there is seen by `offsetctl audit` and `offsetctl runs` under the signed-in user', async () => {
  const svc = await addOperator(db, 'console');
  const source = await w2.createSource(3, { name: `orders-${Date.now().toString(36)}` });
  const dir = tempDir('offsetctl-console-');
  writeFileSync(join(dir, 'console.yaml'), `listen: 127.0.0.1:0
state-dir: state
store: ${db.urlFor(svc)}
store-password-env: CONSOLE_PG
contexts:
  prod:
    url: ${w2.url}
${PROXY_SIGN_IN}roles:
  - group: team-orders
    role: operator
    connectors: ^orders-
`);
  // The team store named in the console's own config file, its password by reference.
  const ui = await startService(['--config', join(dir, 'console.yaml')], { CONSOLE_PG: svc.password, OFFSETCTL_STORE: undefined, PGPASSWORD: undefined });
  let cookie = '';
  const send = async (path: string, form?: Record<string, string>): Promise<{ status: number; body: string; location: string }> => {
    const res = await fetch(`${ui.base}${path}`, {
      redirect: 'manual', method: form ? 'POST' : 'GET',
      headers: { 'X-Forwarded-Email': 'carol@example.com', 'X-Forwarded-Groups': 'team-orders', ...(cookie ? { cookie } : {}), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      ...(form ? { body: new URLSearchParams(form).toString() } : {}),
    });
    cookie = res.headers.get('set-cookie')?.split(';')[0] || cookie;
    return { status: res.status, body: await res.text(), location: res.headers.get('location') ?? '' };
  };
  try {
    const change = await send(`/ctx/prod/connectors/${encodeURIComponent(source.name)}/change`);
    assert.equal(change.status, 200, change.body);
    const csrf = /name="csrf" value="([^"]+)"/.exec(change.body)?.[1] ?? '';
    const preview = await send(`/ctx/prod/connectors/${encodeURIComponent(source.name)}/preview`, { csrf, mode: 'json', offsets: target(source.file, 1), resumeAfter: 'never' });
    assert.equal(preview.status, 200, preview.body);
    const planId = /action="\/ctx\/prod\/plans\/([^/"]+)\/apply"/.exec(preview.body)?.[1];
    assert.ok(planId, preview.body);
    const applied = await send(`/ctx/prod/plans/${planId}/apply`, { csrf, confirm: source.name });
    assert.equal(applied.status, 303, applied.body);
    let job = '';
    await waitFor('the console\'s rewind to end', async () => /data-status="(succeeded|failed|refused)"/.test(job = (await send(applied.location)).body), 90_000);
    assert.match(job, /data-status="succeeded"/, job);
    assert.ok(!ui.output().includes(svc.password), 'the console\'s database password in its output');
  } finally {
    await ui.stop();
  }
  // Left STOPPED (resumeAfter never): a resumed source reads its file from 1 to the end again and
  // commits that within a second, which a loaded machine let happen before this read.
  assert.deepEqual(sortedOffsets(await w1.offsets(source.name)).map((o) => o.offset), [{ position: 1 }]);
  // Another operator, from the CLI through the other worker, sees who did it in the team store.
  const b = operator(bob);
  const runs = JSON.parse((await b(['runs', '--connector', source.name, '--output', 'json'])).stdout) as Array<{ id: string; status: string; actor: { user: string; via: string; dbUser: string; signIn?: { kind: string; groups?: string[] } } }>;
  assert.equal(runs.length, 1);
  assert.deepEqual([runs[0]!.status, runs[0]!.actor.user, runs[0]!.actor.via, runs[0]!.actor.dbUser, runs[0]!.actor.signIn], ['succeeded', 'carol@example.com', 'console', svc.user, { kind: 'proxy', groups: ['team-orders'] }]);
  const shown = await b(['runs', 'show', runs[0]!.id]);
  assert.match(shown.stdout, new RegExp(`started by  carol@example\\.com \\(signed in with the trusted proxy, groups team-orders; console on .*database login ${svc.user}`));
  const audit = await b(['audit', '--connector', source.name, '--output', 'json']);
  assert.equal(audit.status, 0, audit.stderr);
  const entries = audit.stdout.trim().split('\n').map((l) => JSON.parse(l) as { outcome: string; runId?: string; actor: { user: string; via: string; groups?: string[] }; diff?: Array<{ to: unknown }> });
  assert.deepEqual(entries.map((e) => [e.outcome, e.actor.user, e.actor.via, e.runId]), [['started', 'carol@example.com', 'proxy', runs[0]!.id], ['succeeded', 'carol@example.com', 'proxy', runs[0]!.id]]);
  assert.deepEqual(entries[0]!.diff?.map((d) => d.to), [{ position: 1 }]);
  // A change from the CLI is audited under the operator's database login, the OS user beside it.
  const reset = await b(['reset', source.name, '--yes', '--url', w1.url]);
  assert.equal(reset.status, 0, reset.stderr);
  const after = (await b(['audit', '--connector', source.name, '--output', 'json'])).stdout.trim().split('\n').map((l) => JSON.parse(l) as { outcome: string; actor: { user: string; via: string; dbUser?: string; osUser?: string } });
  assert.deepEqual(after.slice(2).map((e) => [e.outcome, e.actor.user, e.actor.via, e.actor.dbUser]), [['started', bob.user, 'cli', bob.user], ['succeeded', bob.user, 'cli', bob.user]]);
  assert.ok(after[2]!.actor.osUser);
});

test('the team store stopped: a rewind exits 2 before touching the connector', async () => {
  const own = await startPgServer();
  const source = await w1.createSource(3);
  const before = await w1.offsets(source.name);
  const url = `postgres://postgres@127.0.0.1:${own.port}/postgres`;
  const env = { OFFSETCTL_STORE: undefined, PGPASSWORD: own.adminPassword };
  // Reachable first (and migrated), so the refusal below is the stop, not a typo.
  assert.equal((await runCli(['store', 'migrate', '--store', url], { env })).status, 0);
  stopPgServer(own, 'fast');
  const r = await runCli(['rewind', source.name, '--offsets', '-', '--yes', '--url', w1.url, '--store', url], { stdin: target(source.file, 0), env });
  outputs.push(r);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /cannot open the team store postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres: .*cannot be reached/);
  assert.equal((await w1.status(source.name)).connector.state, 'RUNNING');
  assert.deepEqual(await w1.offsets(source.name), before);
  assert.ok(!r.stdout.includes(own.adminPassword) && !r.stderr.includes(own.adminPassword));
});

test('no password in any output, in the state folders, or in what the store recorded', async () => {
  const secrets = [alice.password, bob.password];
  const encodings = (s: string): string[] => [s, Buffer.from(s).toString('base64'), encodeURIComponent(s)];
  for (const r of outputs) for (const s of secrets) for (const e of encodings(s)) assert.ok(!r.stdout.includes(e) && !r.stderr.includes(e), 'a password in offsetctl\'s output');
  for (const dir of stateDirs) {
    for (const f of readdirSync(dir, { recursive: true }) as string[]) {
      const full = join(dir, f);
      if (!statSync(full).isFile()) continue;
      const text = readFileSync(full, 'latin1');
      for (const s of secrets) for (const e of encodings(s)) assert.ok(!text.includes(e), `${f} holds a password`);
    }
  }
  const admin = await adminPool(db.name);
  try {
    for (const s of secrets) {
      const hits = await admin.query(`SELECT (SELECT count(*) FROM runs WHERE (inputs || context::text || actor::text || coalesce(message, '')) LIKE '%' || $1 || '%')
        + (SELECT count(*) FROM run_events WHERE detail LIKE '%' || $1 || '%') + (SELECT count(*) FROM run_steps WHERE outputs LIKE '%' || $1 || '%') AS n`, [s]);
      assert.equal(Number(hits.rows[0]!.n), 0, 'a password in the team store');
    }
  } finally {
    await admin.end();
  }
});
