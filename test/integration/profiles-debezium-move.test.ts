// `move` of a Debezium PostgreSQL source between two Connect clusters (issue 34): one replication
// slot streams to one client, so the new connector may start only once the old task has let go of
// it. Real Debezium on the plugins sandbox's two Connect clusters (the test adds the sandbox's
// second cluster, one worker, when it is missing; nothing running is restarted), real PostgreSQL.
// 1. A live source (rows arriving all along) moved: the move waits for the slot and says so, and the
//    new task streams (every row reaches the topic; the slot is active for the new task).
// 2. The slot held by another real replication client (pg_recvlogical, START_REPLICATION): the move
//    does not start the new connector, puts the connector back, exits 1 and says who holds the slot.
// 3. The slot held at first and let go a few seconds into the wait: the move waits, then starts the
//    new connector, whose task takes the slot and streams.
// 4. `runs resume` of a move killed before it started the new connector waits for the slot as well.
// Real parts: the plugins sandbox (Kafka, Connect, Debezium/JDBC/Iceberg, a CDC PostgreSQL), child processes, spawns the CLI.
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { test, type TestContext } from 'node:test';
import { runCli } from '../support/cli.js';
import { ConnectRest, waitFor } from '../support/connect.js';
import { cdcDatabase, changeEvents, debeziumConfig } from '../support/debezium.js';
import { requirePlugins, type PluginSandbox, type cdcPool } from '../support/plugin-sandbox.js';

const PG_RECVLOGICAL = '/usr/lib/postgresql/15/bin/pg_recvlogical';

/** The sandbox's second Connect cluster, added (one worker, the same plugins) when it is not there. */
async function secondCluster(): Promise<string> {
  const read = async (): Promise<string | undefined> => {
    const s = JSON.parse((await runCli(['sandbox', 'status', '--output', 'json'])).stdout) as { clusters?: Array<{ name: string; connect: string[] }> };
    return s.clusters?.find((c) => c.name === 'second')?.connect[0];
  };
  const there = await read();
  if (there) return there;
  const up = await runCli(['sandbox', 'up', '--clusters', '2', '--workers', '1'], { timeoutMs: 300_000 });
  assert.equal(up.status, 0, `adding the second cluster: ${up.stdout}${up.stderr}`);
  const added = await read();
  assert.ok(added, 'the second cluster after sandbox up --clusters 2');
  return added;
}

interface Source {
  name: string;
  id: string;
  rest: ConnectRest;
  restThere: ConnectRest;
  sourceDb: string;
  topic: string;
  pool: ReturnType<typeof cdcPool>;
  admin: ReturnType<typeof cdcPool>;
}

async function debeziumSource(t: TestContext, sandbox: PluginSandbox, there: string): Promise<Source> {
  const rest = new ConnectRest(sandbox.connect[0]!);
  const restThere = new ConnectRest(there);
  let name = '';
  // Whoever holds the slot at the end (a test's pg_recvlogical may) is ended before it is dropped (support/debezium.ts).
  const db = await cdcDatabase(t, sandbox, 'mv', ['CREATE TABLE orders (id int PRIMARY KEY, note text)', `INSERT INTO orders SELECT g, 'order ' || g FROM generate_series(1, 10) g`], {
    cleanup: async () => {
      await rest.deleteConnector(name).catch(() => undefined);
      await restThere.deleteConnector(name).catch(() => undefined);
    },
    topics: (id) => [`${id}.public.orders`],
  });
  name = db.name;
  const { id, pool, admin } = db;
  await rest.createConnector(name, debeziumConfig(sandbox.cdc!, id, {
    'publication.autocreate.mode': 'filtered', 'snapshot.mode': 'initial',
    'key.converter': 'org.apache.kafka.connect.json.JsonConverter', 'value.converter': 'org.apache.kafka.connect.json.JsonConverter',
    'key.converter.schemas.enable': 'false', 'value.converter.schemas.enable': 'false',
  }));
  const topic = `${id}.public.orders`;
  await waitFor(`${name} RUNNING with a task`, async () => {
    const s = await rest.status(name);
    return s.connector.state === 'RUNNING' && s.tasks.length === 1 && s.tasks[0]!.state === 'RUNNING';
  }, 120_000);
  await waitFor(`${name}'s first offset`, async () => (await rest.offsets(name)).offsets.length > 0, 120_000);
  return { name, id, rest, restThere, sourceDb: db.sourceDb, topic, pool, admin };
}

/** The ids of every change event on the topic from its start. */
async function idsOnTopic(bootstrap: string, topic: string, quietMs = 3000): Promise<number[]> {
  return (await changeEvents(bootstrap, topic, quietMs)).map(([, id]) => id);
}

async function slotRow(s: Source): Promise<{ active: boolean; active_pid: number | null } | undefined> {
  return (await s.admin.query<{ active: boolean; active_pid: number | null }>('SELECT active, active_pid FROM pg_replication_slots WHERE slot_name = $1', [s.id])).rows[0];
}

test('move of a live Debezium source waits for the old task to let go of the slot; the new task streams on the other cluster', { timeout: 600_000 }, async (t) => {
  const sandbox = await requirePlugins(t, ['debezium-postgres'], { cdc: true });
  if (!sandbox) return;
  const there = await secondCluster();
  const s = await debeziumSource(t, sandbox, there);
  const url = sandbox.connect[0]!;

  // The dry run says the move will wait for the slot, with the figure.
  const dry = await runCli(['--url', url, 'move', s.name, '--to', there, '--source-db', s.sourceDb, '--dry-run']);
  assert.equal(dry.status, 0, dry.stderr);
  assert.match(dry.stdout, new RegExp(`waits up to 60 s for replication slot "${s.id}" on .* to be inactive`));
  assert.match(dry.stdout, new RegExp(`slot ${s.id}: restart_lsn \\d+/[0-9A-F]+ .* active \\(pid \\d+\\)`));
  assert.equal((await s.restThere.status(s.name).catch(() => undefined)), undefined, 'the dry run created nothing there');
  // A batch's plan says the same (--selector: each connector's profile asked with the same login).
  const batchDry = await runCli(['--url', url, 'move', '--selector', `^${s.name}$`, '--to', there, '--source-db', s.sourceDb, '--slot-wait', '30', '--dry-run']);
  assert.equal(batchDry.status, 0, batchDry.stderr);
  assert.match(batchDry.stdout, new RegExp(`waits up to 30 s for replication slot "${s.id}"`));
  // Without a login to the source database the move is refused (exit 2), nothing changed.
  const refused = await runCli(['--url', url, 'move', s.name, '--to', there, '--yes']);
  assert.equal(refused.status, 2, refused.stderr);
  assert.match(refused.stderr, /--source-db/);
  assert.equal((await s.rest.status(s.name)).connector.state, 'RUNNING');

  // Rows arrive all along: one every 100 ms, before, during and after the move.
  let next = 11;
  let writing = true;
  const writer = (async () => {
    while (writing) {
      await s.pool.query('INSERT INTO orders VALUES ($1, $2)', [next, `order ${next}`]);
      next += 1;
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  t.after(async () => {
    writing = false;
    await writer.catch(() => undefined);
  });
  const oldPid = (await slotRow(s))?.active_pid;
  const moved = await runCli(['--url', url, 'move', s.name, '--to', there, '--source-db', s.sourceDb, '--yes']);
  assert.equal(moved.status, 0, `${moved.stdout}${moved.stderr}`);
  t.diagnostic(moved.stdout.split('\n').filter((l) => /done:/.test(l)).join(' '));
  assert.match(moved.stdout, new RegExp(`replication slot "${s.id}" on .* was inactive \\d+\\.\\d s into the wait \\(up to 60 s\\) before the new connector was started`));
  assert.doesNotMatch(`${moved.stdout}${moved.stderr}`, /is active/);

  // The new task streams: RUNNING on the second cluster, the slot active for a new backend, and
  // rows written after the move on the topic.
  await waitFor('the moved connector RUNNING with its task there', async () => {
    const st = await s.restThere.status(s.name);
    return st.connector.state === 'RUNNING' && st.tasks.length === 1 && st.tasks[0]!.state === 'RUNNING';
  }, 120_000);
  await waitFor('the slot active for the new task', async () => {
    const row = await slotRow(s);
    return row?.active === true && row.active_pid !== oldPid;
  }, 120_000);
  await new Promise((r) => setTimeout(r, 2000));
  writing = false;
  await writer;
  const last = next - 1;
  const seen = await waitFor(`every row 1..${last} on ${s.topic}`, async () => {
    const ids = new Set(await idsOnTopic(sandbox.bootstrap, s.topic));
    return ids.size === last ? ids : undefined;
  }, 180_000, 2000);
  assert.equal(seen.size, last);
  const task = (await s.restThere.status(s.name)).tasks[0]!;
  assert.equal(task.state, 'RUNNING', JSON.stringify(task));
  assert.equal((await s.rest.status(s.name).catch(() => undefined)), undefined, 'gone from the first cluster');
});

test('move of a Debezium source whose slot another client holds does not start the new one: put back, exit 1, says why', { timeout: 600_000 }, async (t) => {
  const sandbox = await requirePlugins(t, ['debezium-postgres'], { cdc: true });
  if (!sandbox) return;
  const there = await secondCluster();
  const s = await debeziumSource(t, sandbox, there);
  const url = sandbox.connect[0]!;
  const cdc = sandbox.cdc!;

  // Stopped (the old task lets go), then a real replication client takes the slot: START_REPLICATION by pg_recvlogical.
  const stop = await runCli(['--url', url, 'stop', s.name, '--source-db', s.sourceDb]);
  assert.equal(stop.status, 0, stop.stderr);
  await waitFor('slot released by the stopped task', async () => (await slotRow(s))?.active === false, 60_000);
  const holder: ChildProcess = spawn(PG_RECVLOGICAL, ['-h', cdc.host, '-p', String(cdc.port), '-U', cdc.user, '-d', s.id, '--slot', s.id, '--start',
    '-o', 'proto_version=1', '-o', `publication_names=${s.id}`, '-f', '/dev/null', '--no-loop'], { stdio: 'ignore' });
  t.after(() => void holder.kill('SIGTERM'));
  const held = await waitFor('slot held by pg_recvlogical', async () => {
    const row = await slotRow(s);
    return row?.active === true ? row.active_pid : undefined;
  }, 30_000);

  const moved = await runCli(['--url', url, 'move', s.name, '--to', there, '--source-db', s.sourceDb, '--target-state', 'RUNNING', '--slot-wait', '5', '--yes']);
  assert.equal(moved.status, 1, `${moved.stdout}${moved.stderr}`);
  const said = `${moved.stdout}${moved.stderr}`;
  t.diagnostic(said.split('\n').filter((l) => /error/.test(l)).join(' '));
  assert.match(said, new RegExp(`replication slot "${s.id}" on .* was still active \\(held by pid ${held}\\) after [5-9]\\.\\d s`));
  assert.match(said, /the new connector on .* was not started/);
  assert.match(said, /It was undone/);
  // Nothing of it runs there, and it is back on the first cluster as it was (STOPPED); the slot is still pg_recvlogical's.
  assert.equal(await s.restThere.status(s.name).catch(() => undefined), undefined, 'not left on the second cluster');
  assert.equal((await s.rest.status(s.name)).connector.state, 'STOPPED');
  assert.equal((await slotRow(s))?.active_pid, held);
});

test('move of a Debezium source waits while another client holds the slot, and starts the new one once it lets go', { timeout: 600_000 }, async (t) => {
  const sandbox = await requirePlugins(t, ['debezium-postgres'], { cdc: true });
  if (!sandbox) return;
  const there = await secondCluster();
  const s = await debeziumSource(t, sandbox, there);
  const url = sandbox.connect[0]!;
  const cdc = sandbox.cdc!;
  const stop = await runCli(['--url', url, 'stop', s.name, '--source-db', s.sourceDb]);
  assert.equal(stop.status, 0, stop.stderr);
  await waitFor('slot released by the stopped task', async () => (await slotRow(s))?.active === false, 60_000);
  const holder: ChildProcess = spawn(PG_RECVLOGICAL, ['-h', cdc.host, '-p', String(cdc.port), '-U', cdc.user, '-d', s.id, '--slot', s.id, '--start',
    '-o', 'proto_version=1', '-o', `publication_names=${s.id}`, '-f', '/dev/null', '--no-loop'], { stdio: 'ignore' });
  t.after(() => void holder.kill('SIGTERM'));
  const held = await waitFor('slot held by pg_recvlogical', async () => {
    const row = await slotRow(s);
    return row?.active === true ? row.active_pid : undefined;
  }, 30_000);

  const move = runCli(['--url', url, 'move', s.name, '--to', there, '--source-db', s.sourceDb, '--target-state', 'RUNNING', '--slot-wait', '120', '--yes']);
  // Once the original is deleted the move is at its wait (the next steps only read); the holder lets go a few seconds into it.
  await waitFor('the original deleted (the move waits for the slot next)', async () => (await s.rest.status(s.name).catch(() => undefined)) === undefined, 120_000, 100);
  await new Promise((r) => setTimeout(r, 6000));
  assert.equal(await s.restThere.status(s.name).then((st) => st.connector.state), 'STOPPED', 'not started while the slot is held');
  assert.equal((await slotRow(s))?.active_pid, held, 'the slot still pg_recvlogical\'s');
  holder.kill('SIGTERM');
  const moved = await move;
  assert.equal(moved.status, 0, `${moved.stdout}${moved.stderr}`);
  t.diagnostic(moved.stdout.split('\n').filter((l) => /done:/.test(l)).join(' '));
  // Counted from the first read: more than 0 means a read found the slot active and the move waited
  // (how long depends on when, on a loaded machine, the move reached its wait before the holder let go).
  const waited = Number(new RegExp(`replication slot "${s.id}" on .* was inactive (\\d+\\.\\d) s into the wait \\(up to 120 s\\)`).exec(moved.stdout)?.[1]);
  assert.ok(waited >= 0.5, `waited ${waited} s: ${moved.stdout}`);
  // The new task took the slot and streams a row written now.
  await waitFor('the slot active for the new task', async () => {
    const row = await slotRow(s);
    return row?.active === true && row.active_pid !== held;
  }, 120_000);
  await s.pool.query(`INSERT INTO orders VALUES (1000, 'after the move')`);
  await waitFor('the row written after the move on the topic', async () => (await idsOnTopic(sandbox.bootstrap, s.topic)).includes(1000), 120_000, 2000);
});

test('runs resume of a move killed before it started the new connector waits for the slot too', { timeout: 600_000 }, async (t) => {
  const sandbox = await requirePlugins(t, ['debezium-postgres'], { cdc: true });
  if (!sandbox) return;
  const there = await secondCluster();
  const s = await debeziumSource(t, sandbox, there);
  const url = sandbox.connect[0]!;
  const cdc = sandbox.cdc!;
  const killed = await runCli(['--url', url, 'move', s.name, '--to', there, '--source-db', s.sourceDb, '--yes'], { env: { OFFSETCTL_TEST_KILL_BEFORE_STEP: 'resumeConnector' } });
  assert.equal(killed.signal, 'SIGKILL', killed.stderr.slice(-2000));
  const runId = /run (\S+)\) before step resumeConnector/.exec(killed.stderr)?.[1];
  assert.ok(runId, killed.stderr.slice(-2000));
  // The original is gone, the new one STOPPED; another client takes the slot meanwhile.
  await waitFor('slot released by the deleted original', async () => (await slotRow(s))?.active === false, 60_000);
  const holder: ChildProcess = spawn(PG_RECVLOGICAL, ['-h', cdc.host, '-p', String(cdc.port), '-U', cdc.user, '-d', s.id, '--slot', s.id, '--start',
    '-o', 'proto_version=1', '-o', `publication_names=${s.id}`, '-f', '/dev/null', '--no-loop'], { stdio: 'ignore' });
  t.after(() => void holder.kill('SIGTERM'));
  const held = await waitFor('slot held by pg_recvlogical', async () => {
    const row = await slotRow(s);
    return row?.active === true ? row.active_pid : undefined;
  }, 30_000);

  const resumed = runCli(['runs', 'resume', runId, '--url', url, '--to', there, '--source-db', s.sourceDb, '--yes']);
  await new Promise((r) => setTimeout(r, 6000));
  assert.equal(await s.restThere.status(s.name).then((st) => st.connector.state), 'STOPPED', 'not started while the slot is held');
  assert.equal((await slotRow(s))?.active_pid, held, 'the slot still pg_recvlogical\'s');
  holder.kill('SIGTERM');
  const r = await resumed;
  assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
  t.diagnostic(r.stdout.split('\n').filter((l) => /done:|waits up to/.test(l)).join(' '));
  assert.match(r.stdout, new RegExp(`waits up to 60 s for replication slot "${s.id}"`));
  const waited = Number(new RegExp(`replication slot "${s.id}" on .* was inactive (\\d+\\.\\d) s into the wait \\(up to 60 s\\)`).exec(r.stdout)?.[1]);
  assert.ok(waited >= 0.5, `waited ${waited} s: ${r.stdout}`);
  await waitFor('the slot active for the new task', async () => {
    const row = await slotRow(s);
    return row?.active === true && row.active_pid !== held;
  }, 120_000);
});
