// `offsetctl sandbox demo --cdc` on the plugins sandbox (issue 34): a Debezium table replayed —
// rows inserted and streamed, then `offsetctl replay --where "id > 25"` run as an operator would,
// and the topic counted: exactly ids 26-40 once more as op=r. It leaves no connector, slot or
// database behind. Skipped without the Debezium plugin and the CDC PostgreSQL (fails instead
// under OFFSETCTL_REQUIRE_PLUGINS=1); a sandbox without them is refused with how to start one.
// Real parts: the plugins sandbox (Kafka, Connect, Debezium/JDBC/Iceberg, a CDC PostgreSQL), spawns the CLI.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli } from '../support/cli.js';
import { ConnectRest, tempDir } from '../support/connect.js';
import { cdcPool, requirePlugins } from '../support/plugin-sandbox.js';

test('sandbox demo --cdc: the replay of id > 25 delivers exactly those 15 rows, counted in the topic, and cleans up', { timeout: 400_000 }, async (t) => {
  const sandbox = await requirePlugins(t, ['debezium-postgres'], { cdc: true });
  if (!sandbox) return;
  const demo = await runCli(['sandbox', 'demo', '--cdc'], { timeoutMs: 360_000 });
  assert.equal(demo.status, 0, `${demo.stdout}\n${demo.stderr}`);
  assert.match(demo.stdout, /3\. Inserted ids 1-40: 40 change events \(op=c\)/);
  assert.match(demo.stdout, /\$ offsetctl replay demo-cdc-\S+ --table public.orders --where "id > 25" --yes/);
  assert.match(demo.stdout, /15 row\(s\) read again \(op=r\) arrived on demo_cdc_\S+\.public\.orders/);
  assert.match(demo.stdout, /5\. Counted in \S+: 15 row\(s\) read again \(op=r\), ids 26-40 — exactly the 15 rows with id > 25, once each/);
  const connectors = await new ConnectRest(sandbox.connect[0]!).listConnectors();
  assert.equal(connectors.some((c) => c.startsWith('demo-cdc-')), false, 'the demo connector was removed');
  const admin = cdcPool(sandbox.cdc!, 'postgres');
  try {
    const left = await admin.query("SELECT slot_name FROM pg_replication_slots WHERE slot_name LIKE 'demo_cdc_%' "
      + "UNION ALL SELECT datname FROM pg_database WHERE datname LIKE 'demo_cdc_%'");
    assert.deepEqual(left.rows, [], 'no slot or database left');
  } finally {
    await admin.end();
  }
});

test('sandbox demo --cdc on a sandbox folder with nothing running is refused, saying how to start one', { timeout: 60_000 }, async () => {
  const empty = tempDir('demo-cdc-empty');
  const demo = await runCli(['sandbox', 'demo', '--cdc', '--dir', empty]);
  assert.notEqual(demo.status, 0);
  assert.match(demo.stderr, /is not running: start it with `offsetctl sandbox up --plugin debezium-postgres --cdc-postgres`/);
});
