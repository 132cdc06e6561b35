// A Debezium source whose replication slot was lost while it was STOPPED (issue 34): the WAL it
// needed passed max_slot_wal_keep_size. Kafka Connect then reads RUNNING with no task while the task
// retries for 30 minutes; offsetctl's `resume` refuses, naming the way out. Real Debezium on the
// plugins sandbox's workers, against a PostgreSQL of this test's own with a 1 MB
// max_slot_wal_keep_size, so the slot is really lost (wal_status lost) by writing WAL, not faked.
// Real parts: the plugins sandbox (Kafka, Connect, Debezium/JDBC/Iceberg, a CDC PostgreSQL), spawns the CLI.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli } from '../support/cli.js';
import { loseSlot, sourceOnLossyPostgres } from '../support/debezium.js';
import { requirePlugins } from '../support/plugin-sandbox.js';

test('resume of a Debezium source whose slot was lost while it was stopped is refused, with the way out', { timeout: 600_000 }, async (t) => {
  const sandbox = await requirePlugins(t, ['debezium-postgres']);
  if (!sandbox) return;
  const { name, slot, url, rest, pool, sourceDb } = await sourceOnLossyPostgres(t, sandbox, 'dbz-lost');

  const stop = await runCli(['--url', url, 'stop', name, '--source-db', sourceDb]);
  assert.equal(stop.status, 0, stop.stderr);
  assert.match(stop.stdout, /safe_wal_size \d+ bytes/);
  assert.match(stop.stderr, /after .* more of WAL .* the slot is lost \(wal_status lost\)/);
  // Write WAL past max_slot_wal_keep_size; a checkpoint then removes what the slot needed.
  await loseSlot(pool, slot);

  const resume = await runCli(['--url', url, 'resume', name, '--source-db', sourceDb]);
  assert.equal(resume.status, 2, resume.stderr);
  assert.match(resume.stderr, /is lost \(wal_status lost.*RUNNING with no task.*The way out: drop the slot \(SELECT pg_drop_replication_slot\('dbz_lost_/);
  assert.equal((await rest.status(name)).connector.state, 'STOPPED');

  // Resumed anyway (the risk accepted): RUNNING with no task is not counted as running.
  const anyway = await runCli(['--url', url, 'resume', name, '--skip-source-check', '--timeout-s', '20']);
  assert.equal(anyway.status, 1, `${anyway.stdout}${anyway.stderr}`);
  assert.match(anyway.stderr, /did not reach RUNNING within 20 s \(last seen: RUNNING\)|did not start: task 0 is FAILED/);
  assert.doesNotMatch(anyway.stdout, /STOPPED → RUNNING/);
});
