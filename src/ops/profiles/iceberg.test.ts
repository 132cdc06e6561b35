// Real parts: none (the code under test, in this process).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { catalogRefusal, checkProfile, chooseSnapshot, parseExact } from './index.js';
import type { IcebergTable } from './iceberg-catalog.js';

const snap = (id: string, parentId: string | undefined, commit: string | undefined, total: number) =>
  [id, { id, ...(parentId ? { parentId } : {}), timestampMs: 1_733_300_000_000, summary: { 'total-records': String(total),
    ...(commit ? { 'kafka.connect.commit-id': commit } : {}) } }] as const;
const table = (head: string, ...s: Array<ReturnType<typeof snap>>): IcebergTable => ({ name: 'db.events', namespace: ['db'], table: 'events', head,
  snapshots: new Map(s) });
const commits = new Map([
  ['c1', { commitId: 'c1', groupId: 'connect-ice', offsets: new Map([['orders:0', 10]]) }],
  ['c2', { commitId: 'c2', groupId: 'connect-ice', offsets: new Map([['orders:0', 30]]) }],
]);
const at = (n: number | undefined) => new Map([['orders:0', n]]);

test('the table goes back to the newest snapshot that ends exactly at the target; other writers\' snapshots after it are counted', () => {
  const t = table('b', snap('a', undefined, 'c1', 10), snap('f', 'a', undefined, 12), snap('b', 'f', 'c2', 32));
  const r = chooseSnapshot(t, commits, at(10), 'rewind');
  assert.ok('target' in r);
  assert.equal(r.target?.id, 'a');
  assert.equal(r.foreign, 1);
  const stays = chooseSnapshot(t, commits, at(30), 'rewind');
  assert.ok('target' in stays && stays.target?.id === 'b');
});

test('a target between two commits, or before the first, is refused naming where a commit ended; reset never empties a table', () => {
  const t = table('b', snap('a', undefined, 'c1', 10), snap('b', 'a', 'c2', 30));
  const between = chooseSnapshot(t, commits, at(15), 'rewind');
  assert.ok('refusal' in between);
  assert.match(between.refusal,
    /no snapshot of db\.events ends exactly at the target \(orders:0=15\).*Rewind to where that commit ended instead \(orders:0=10\)/);
  const early = chooseSnapshot(t, commits, at(5), 'rewind');
  assert.ok('refusal' in early && /before db\.events's first commit/.test(early.refusal));
  const reset = chooseSnapshot(t, commits, at(undefined), 'reset');
  assert.ok('refusal' in reset && /would empty the table/.test(reset.refusal));
  const withParent = chooseSnapshot(table('b', snap('0', undefined, undefined, 3), snap('a', '0', 'c1', 13), snap('b', 'a', 'c2', 33)), commits,
    at(undefined), 'reset');
  assert.ok('target' in withParent && withParent.target?.id === '0');
});

test('only a REST catalog is accepted for the table side: JDBC, Hive (the default) and other catalog-impls are refused with the reason', () => {
  const base = { 'iceberg.tables': 'db.events', 'iceberg.catalog.uri': 'http://127.0.0.1:1' };
  assert.match(catalogRefusal('ice', { ...base, 'iceberg.catalog.type': 'jdbc' })!,
    /a jdbc catalog \(iceberg\.catalog\.type=jdbc\); offsetctl sets Iceberg tables back only through the REST catalog protocol/);
  assert.match(catalogRefusal('ice', base)!, /a Hive catalog \(no iceberg\.catalog\.type: Iceberg's default\)/);
  assert.match(catalogRefusal('ice', { ...base, 'iceberg.catalog.catalog-impl': 'org.apache.iceberg.nessie.NessieCatalog' })!,
    /catalog-impl org\.apache\.iceberg\.nessie\.NessieCatalog/);
  assert.equal(catalogRefusal('ice', { ...base, 'iceberg.catalog.type': 'rest' }), undefined);
  assert.match(catalogRefusal('ice', { 'iceberg.catalog.type': 'rest', 'iceberg.catalog.uri': 'http://x' })!, /dynamically/);
});

test('the dry run of a rewind through a JDBC catalog says the tables cannot be set back and that a real rewind is refused', async () => {
  const config = { 'connector.class': 'org.apache.iceberg.connect.IcebergSinkConnector', 'iceberg.tables': 'db.orders', 'iceberg.catalog.type': 'jdbc' };
  const report = await checkProfile({ operation: 'rewind', connector: { name: 'ice', type: 'sink', state: 'RUNNING', config }, current: [],
    target: [], replayed: { records: 20, wholePartitions: 0 }, options: {} });
  assert.match(report.warnings[0]!,
    /20 record\(s\) will be appended again as new rows \(duplicates\), and the tables cannot be set back: .*jdbc catalog.*A real rewind is refused for that reason/);
  assert.match(report.iceberg?.refusal ?? '', /REST catalog protocol/);
  // A rollback is never refused for the table side: it is the way back.
  const rollback = await checkProfile({ operation: 'rollback', connector: { name: 'ice', type: 'sink', state: 'RUNNING', config }, current: [],
    target: [], options: {} });
  assert.equal(rollback.iceberg?.refusal, undefined);
  assert.match(rollback.warnings[0]!, /are not restored with the group/);
});

test('snapshot ids beyond 2^53 are kept exactly', () => {
  const text = '{"metadata":{"current-snapshot-id":1820595303036193084,"snapshots":[{"snapshot-id":1820595303036193084,"parent-snapshot-id":9007199254740993}]}}';
  assert.deepEqual(parseExact(text), { metadata: { 'current-snapshot-id': '1820595303036193084', snapshots: [{ 'snapshot-id': '1820595303036193084',
    'parent-snapshot-id': '9007199254740993' }] } });
});
