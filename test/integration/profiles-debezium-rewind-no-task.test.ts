// A rewind of a Debezium source whose task cannot come back (issue 34): its replication slot was
// lost while it was STOPPED (the WAL passed max_slot_wal_keep_size), so once resumed Kafka Connect
// reads the connector RUNNING with no task while the task retries. The rewind's own resume and
// wait must not call that running: the run fails (exit 1), is put back, and says so — never
// "done; the connector is RUNNING". Real Debezium on the plugins sandbox, a PostgreSQL of this test's own.
// Real parts: the plugins sandbox (Kafka, Connect, Debezium/JDBC/Iceberg, a CDC PostgreSQL), spawns the CLI.
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../support/cli.js';
import { tempDir, waitFor } from '../support/connect.js';
import { loseSlot, sourceOnLossyPostgres } from '../support/debezium.js';
import { requirePlugins } from '../support/plugin-sandbox.js';

test('a rewind of a Debezium source whose task never comes back (slot lost) is not reported RUNNING: exit 1, put back', { timeout: 900_000 }, async (t) => {
  const sandbox = await requirePlugins(t, ['debezium-postgres']);
  if (!sandbox) return;
  const { name, slot, url, rest, pool } = await sourceOnLossyPostgres(t, sandbox, 'dbz-notask');
  const offset = await waitFor(`${name}'s first offset`, async () => (await rest.offsets(name)).offsets[0]);

  // Stopped, then the slot lost: WAL written past max_slot_wal_keep_size, a checkpoint removes it.
  await rest.stop(name);
  await loseSlot(pool, slot);

  // The rewind (to its own offset, the risk accepted) resumes it: its task never comes back. Its
  // record time one microsecond earlier, so the target differs from the committed offset (the same
  // offset is "nothing to change": nothing is stopped or resumed), and the position is the same.
  const target = { ...offset, offset: { ...offset.offset, ts_usec: Number(offset.offset?.['ts_usec'] ?? 1) - 1 } };
  const file = join(tempDir('dbz-notask'), 'offsets.json');
  writeFileSync(file, JSON.stringify({ offsets: [target] }));
  const rewind = await runCli(['--url', url, 'rewind', name, '--offsets', file, '--skip-source-check', '--resume', '--yes'], { timeoutMs: 600_000 });
  const said = `${rewind.stdout}${rewind.stderr}`;
  t.diagnostic(said.split('\n').filter((l) => /error|done/.test(l)).join(' '));
  assert.doesNotMatch(said, /rewind of .* done; the connector is RUNNING/);
  assert.equal(rewind.status, 1, said);
  assert.match(said, /rewind of .* failed at step waitForRunning/);
  assert.match(said, /RUNNING with no task|no task/);
});
