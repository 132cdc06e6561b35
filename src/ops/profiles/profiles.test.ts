// Real parts: none (the code under test, in this process).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { OpsError } from '../errors.js';
import { checkProfile, profileFor, refusalFor, replayedRecords, resetOutcome } from './index.js';
import { refusalFor as refusal } from './debezium-postgres.js';

const info = (name: string, config: Record<string, string>, type: 'source' | 'sink' = 'sink') => ({ name, type, state: 'RUNNING', config });

test('profiles are found by full class, short name and alias; unknown plugins get the generic one', () => {
  assert.equal(profileFor({ 'connector.class': 'io.debezium.connector.postgresql.PostgresConnector' }).name, 'debezium-postgres');
  assert.equal(profileFor({ 'connector.class': 'PostgresConnector' }).name, 'debezium-postgres');
  assert.equal(profileFor({ 'connector.class': 'FileStreamSource' }).name, 'kafka');
  assert.equal(profileFor({ 'connector.class': 'org.apache.kafka.connect.mirror.MirrorSourceConnector' }).name, 'kafka');
  assert.equal(profileFor({ 'connector.class': 'io.debezium.connector.jdbc.JdbcSinkConnector' }).name, 'jdbc-sink');
  assert.equal(profileFor({ 'connector.class': 'org.apache.iceberg.connect.IcebergSinkConnector' }).name, 'iceberg-sink');
  assert.equal(profileFor({ 'connector.class': 'com.example.Other' }).name, 'generic');
});

test('the generic profile warns in the dry run; Kafka\'s own plugins get no new warning', async () => {
  const generic = await checkProfile({ operation: 'rewind', connector: info('x', { 'connector.class': 'com.example.Other' }), current: [], target: [], options: {} });
  assert.match(generic.warnings[0]!, /no profile for.*outside Kafka Connect.*only after the change/);
  const file = await checkProfile({ operation: 'reset', connector: info('f', { 'connector.class': 'FileStreamSource' }, 'source'), current: [], target: [], options: {} });
  assert.deepEqual(file.warnings, []);
});

test('a Debezium source without its source database is refused, or warned about with --skip-source-check', async () => {
  const dbz = info('pg-src', { 'connector.class': 'io.debezium.connector.postgresql.PostgresConnector', 'slot.name': 'dbz_orders', 'topic.prefix': 'app' }, 'source');
  const current = [{ partition: { server: 'app' }, offset: { lsn: 26667512, txId: 7, ts_usec: 1_733_300_000_000_000 } }];
  await assert.rejects(checkProfile({ operation: 'rewind', connector: dbz, current, target: current, options: {} }),
    (err: unknown) => err instanceof OpsError && err.code === 'E_PREFLIGHT' && err.field === 'source-db' && /--source-db postgres:\/\/.*--skip-source-check/.test(err.message));
  const skipped = await checkProfile({ operation: 'reset', connector: dbz, current, target: [], options: { skipSourceCheck: true } });
  assert.ok(skipped.warnings.some((w) => /snapshot.mode=initial.*every row is sent again.*every sink downstream/.test(w)));
  assert.ok(skipped.warnings.some((w) => /--skip-source-check: replication slot "dbz_orders" was not read/.test(w)));
  // The rest of an interrupted run is planned without the database, and the warning does not claim a flag that was not given.
  const finishing = await checkProfile({ operation: 'resume', connector: dbz, current, target: current, options: { finishingRun: true } });
  assert.ok(finishing.warnings.some((w) => /^no --source-db \(an interrupted run is finished without it\): replication slot "dbz_orders" was not read/.test(w)));
  assert.ok(skipped.facts.some((f) => f.includes('lsn 0/196E9F8 (26667512)') && f.includes('ts_usec 2024-12-04T08:13:20.000Z')));
});

test('a move of a Debezium source needs its source database (to wait for the slot), or says with --skip-source-check that it cannot wait', async () => {
  const dbz = info('pg-src', { 'connector.class': 'io.debezium.connector.postgresql.PostgresConnector', 'slot.name': 'dbz_orders', 'topic.prefix': 'app' }, 'source');
  const current = [{ partition: { server: 'app' }, offset: { lsn: 26667512, txId: 7, ts_usec: 1_733_300_000_000_000 } }];
  await assert.rejects(checkProfile({ operation: 'move', connector: dbz, current, options: {} }),
    (err: unknown) => err instanceof OpsError && err.code === 'E_PREFLIGHT' && err.field === 'source-db' && /a move really does.*--source-db/.test(err.message));
  const skipped = await checkProfile({ operation: 'move', connector: dbz, current, options: { skipSourceCheck: true } });
  assert.equal(skipped.exclusive, undefined);
  assert.ok(skipped.warnings.some((w) => /--skip-source-check: replication slot "dbz_orders" is not read, so the move cannot wait.*"replication slot is active"/.test(w)));
});

test('a copy of a Debezium source on the same database needs its own slot, publication and prefix', async () => {
  const config = { 'connector.class': 'io.debezium.connector.postgresql.PostgresConnector', 'database.hostname': 'db', 'database.dbname': 'app', 'slot.name': 'dbz', 'topic.prefix': 'app' };
  await assert.rejects(checkProfile({ operation: 'copy', connector: info('pg-src', config, 'source'), current: [], copyConfig: { ...config, name: 'green' }, options: {} }),
    (err: unknown) => err instanceof OpsError && /slot\.name \(dbz.*publication\.name \(dbz_publication\).*topic\.prefix \(app/.test(err.message));
  const own = await checkProfile({ operation: 'copy', connector: info('pg-src', config, 'source'), current: [], copyConfig: { ...config, 'slot.name': 'g', 'publication.name': 'g', 'topic.prefix': 'g' }, options: {} });
  assert.match(own.warnings[0]!, /finds none of the original's/);
});

test('reset says what snapshot.mode will do', () => {
  assert.match(resetOutcome('initial'), /every row is sent again/);
  assert.match(resetOutcome('no_data'), /nothing is sent again/);
  assert.match(resetOutcome('custom'), /depends on that mode/);
});

test('each refused class names its reason; only the replay window passes', () => {
  const facts = { restart: '0/10', confirmed: '0/20', wal: '0/50', current: '0/30', snapshotMode: 'initial' };
  assert.equal(refusal('replays', '0/25', facts), undefined);
  assert.match(refusalFor('already-streamed', '0/15', facts)!, /would NOT come back/);
  assert.match(refusalFor('below-restart', '0/5', facts)!, /task fails/);
  assert.match(refusalFor('below-restart', '0/5', { ...facts, snapshotMode: 'when_needed' })!, /re-snapshots every captured table/);
  assert.match(refusalFor('forward', '0/40', facts)!, /--allow-forward/);
  assert.match(refusalFor('beyond-wal', '0/60', facts)!, /beyond the end of the WAL/);
});

test('JDBC sink: a replay with insert and a key fails, without a key duplicates, upsert is quiet', async () => {
  const jdbc = (extra: Record<string, string>) => info('jdbc', { 'connector.class': 'io.debezium.connector.jdbc.JdbcSinkConnector', ...extra });
  const replayed = { records: 20, wholePartitions: 0 };
  const keyed = await checkProfile({ operation: 'rewind', connector: jdbc({ 'insert.mode': 'insert', 'primary.key.mode': 'record_key' }), current: [], target: [], replayed, options: {} });
  assert.match(keyed.warnings[0]!, /task will fail on a duplicate key at the first of 20 record\(s\)/);
  const keyless = await checkProfile({ operation: 'reset', connector: jdbc({}), current: [], target: [], options: {} });
  assert.match(keyless.warnings[0]!, /every record still in its topics will be inserted again as duplicate rows/);
  const upsert = await checkProfile({ operation: 'rewind', connector: jdbc({ 'insert.mode': 'upsert', 'primary.key.mode': 'record_key' }), current: [], target: [], replayed, options: {} });
  assert.deepEqual(upsert.warnings, []);
  const forward = await checkProfile({ operation: 'rewind', connector: jdbc({}), current: [], target: [], replayed: { records: 0, wholePartitions: 0 }, options: {} });
  assert.deepEqual(forward.warnings, []);
});

test('Iceberg sink: a replay says how many rows are appended again; a copy into the same tables is refused', async () => {
  const config = { 'connector.class': 'org.apache.iceberg.connect.IcebergSinkConnector', 'iceberg.tables': 'db.orders' };
  const rewind = await checkProfile({ operation: 'rewind', connector: info('ice', config), current: [], target: [], replayed: { records: 20, wholePartitions: 0 }, options: {} });
  assert.match(rewind.warnings[0]!, /no dedup or upsert: 20 record\(s\) will be appended again/);
  await assert.rejects(checkProfile({ operation: 'copy', connector: info('ice', config), current: [], copyConfig: { ...config, name: 'ice2' }, options: {} }), /same tables \(db\.orders\)/);
  const branch = await checkProfile({ operation: 'copy', connector: info('ice', config), current: [], copyConfig: { ...config, 'iceberg.tables.default-commit-branch': 'green' }, options: {} });
  assert.deepEqual(branch.warnings, []);
});

test('records replayed are counted per partition from committed and target offsets', () => {
  const p = (n: number) => ({ topic: 't', partition: n });
  const current = [{ partition: p(0), offset: { kafka_offset: 30 } }, { partition: p(1), offset: { kafka_offset: 5 } }, { partition: p(2), offset: { kafka_offset: 7 } }];
  assert.deepEqual(replayedRecords(current, [{ partition: p(0), offset: { kafka_offset: 10 } }, { partition: p(1), offset: { kafka_offset: 9 } }, { partition: p(2), offset: null }]), { records: 20, wholePartitions: 1 });
  assert.deepEqual(replayedRecords(current, [{ partition: p(0), offset: { kafka_offset: '25' } }], 'replace'), { records: 5, wholePartitions: 2 });
});
