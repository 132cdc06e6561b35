// Back up and restore: ten connectors of the main cluster (FileStream sources and sinks and two
// MirrorSourceConnectors, RUNNING, PAUSED and STOPPED, with offsets) exported with --consistent,
// then lost (offsets reset, connectors deleted: the sinks' consumer groups too), then imported
// into the second cluster: the same configs, states and offsets. A literal secret is left out of
// the backup and asked for (--secrets-file), a config-provider reference stays; no secret in any
// output or stored file, in any encoding. rollback of an import deletes what it created, and an
// import killed half-way is finished by runs resume.
// Real parts: the sandbox's Kafka broker and Connect cluster, a SQLite store file, spawns the CLI.
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parse } from 'yaml';
import type { CliResult } from '../support/cli.js';
import { tempDir, uniqueName, waitFor } from '../support/connect.js';
import { moveCli, moveStateDir, twoClusters, type TwoClusters } from '../support/move.js';

const SECRET = `pw-${Date.now().toString(36)}-Q7/x+z`;
const JAAS = `org.apache.kafka.common.security.plain.PlainLoginModule required username="mm" password="${SECRET}";`;
const ENCODED = [Buffer.from(SECRET).toString('base64'), encodeURIComponent(SECRET), Buffer.from(JAAS).toString('base64')];

let clusters: TwoClusters;
let cli: ReturnType<typeof moveCli>;
let stateDir: string;
let dir: string;
let prefix: string;
const outputs: CliResult[] = [];
interface Spec { name: string; config: Record<string, string>; state: 'RUNNING' | 'PAUSED' | 'STOPPED'; offsets?: unknown[] }
const specs: Spec[] = [];

before(async () => {
  clusters = await twoClusters();
  stateDir = moveStateDir('move-backup');
  cli = moveCli(stateDir);
  dir = tempDir('offsetctl-move-backup-');
  prefix = uniqueName('bk');
  const file = (i: number): string => {
    const f = join(dir, `in-${i}.txt`);
    writeFileSync(f, Array.from({ length: 3 + i }, (_, n) => `s${i} line ${n + 1}`).join('\n') + '\n');
    return f;
  };
  const source = (i: number, state: Spec['state'], offsets?: unknown[]): Spec => ({
    name: `${prefix}-src-${i}`, state, ...(offsets ? { offsets } : {}),
    config: { 'connector.class': 'org.apache.kafka.connect.file.FileStreamSourceConnector', 'tasks.max': '1', file: file(i), topic: `${prefix}-topic-${i}` },
  });
  specs.push(source(0, 'RUNNING'), source(1, 'RUNNING'), source(2, 'PAUSED'), source(3, 'STOPPED', [{ partition: { filename: join(dir, 'in-3.txt') }, offset: { position: 4 } }]));
  const sink = (i: number, state: Spec['state'], offsets?: unknown[]): Spec => ({
    name: `${prefix}-sink-${i}`, state, ...(offsets ? { offsets } : {}),
    config: { 'connector.class': 'FileStreamSink', 'tasks.max': '1', file: join(dir, `out-${i}.txt`), topics: `${prefix}-topic-${i}` },
  });
  specs.push(sink(0, 'RUNNING'), sink(1, 'RUNNING'), sink(2, 'PAUSED'), sink(3, 'STOPPED', [{ partition: { kafka_topic: `${prefix}-topic-1`, kafka_partition: 0 }, offset: { kafka_offset: 2 } }]));
  for (const i of [0, 1]) {
    specs.push({
      name: `${prefix}-mirror-${i}`, state: 'STOPPED',
      offsets: [{ partition: { cluster: 'up', topic: `${prefix}-upstream`, partition: i }, offset: { offset: 10 + i } }],
      config: {
        'connector.class': 'org.apache.kafka.connect.mirror.MirrorSourceConnector', 'tasks.max': '1',
        'source.cluster.alias': 'up', 'target.cluster.alias': 'down', 'source.cluster.bootstrap.servers': clusters.bootstrap, 'target.cluster.bootstrap.servers': clusters.bootstrap,
        topics: `${prefix}-upstream`, 'replication.factor': '1',
        // A literal secret (PASSWORD-typed in the plugin's definition) and a config-provider reference.
        'sasl.jaas.config': JAAS, 'ssl.truststore.password': '${env:OFFSETCTL_IT_TRUSTSTORE_PASSWORD}',
      },
    });
  }
  // Sources first: the sinks' topics must exist before a sink's offsets are written.
  for (const s of specs.filter((x) => !x.name.includes('-sink-'))) await create(s);
  await waitFor('the running sources to read their files', async () => {
    for (const i of [0, 1]) if (Number((await clusters.main.offsets(`${prefix}-src-${i}`)).offsets[0]?.offset?.position ?? 0) === 0) return false;
    return true;
  });
  for (const s of specs.filter((x) => x.name.includes('-sink-'))) await create(s);
  await waitFor('the running sinks to commit', async () => {
    for (const i of [0, 1]) if ((await clusters.main.offsets(`${prefix}-sink-${i}`)).offsets.length === 0) return false;
    return true;
  }, 120_000);
});

async function create(s: Spec): Promise<void> {
  await clusters.main.createConnector(s.name, s.config, s.offsets ? 'STOPPED' : s.state === 'STOPPED' ? 'STOPPED' : 'RUNNING');
  if (s.offsets) {
    await clusters.main.waitForStopped(s.name);
    await clusters.main.expect('PATCH', `/connectors/${s.name}/offsets`, [200], { offsets: s.offsets });
  }
  if (s.state === 'PAUSED') {
    if (s.offsets) await clusters.main.resume(s.name);
    await clusters.main.waitForRunning(s.name);
    await clusters.main.expect('PUT', `/connectors/${s.name}/pause`, [202]);
    await clusters.main.waitForStatus(s.name, 'PAUSED', (st) => st.connector.state === 'PAUSED');
  } else if (s.state === 'RUNNING') await clusters.main.waitForRunning(s.name);
  else await clusters.main.waitForStopped(s.name);
}

after(async () => {
  for (const rest of [clusters?.main, clusters?.second]) for (const s of specs) if (rest) await rest.deleteConnector(s.name).catch(() => undefined);
});

async function run(args: string[], env?: Record<string, string>): Promise<CliResult> {
  const r = await cli(args, env ? { env } : {});
  outputs.push(r);
  return r;
}

interface BackupDoc { connectors: Array<{ name: string; state: string; config: Record<string, string>; offsets: unknown[]; secretsOmitted?: string[]; offsetsRead: string; plugin: { class: string; version?: string } }> }

const sorted = (list: unknown[]): string[] => list.map((x) => JSON.stringify(x)).sort();

test('export --consistent, lose everything, import into the second cluster: the same configs, states and offsets; the secret asked for, never stored', { timeout: 900_000 }, async () => {
  const exported = await run(['export', '--selector', `^${prefix}-`, '--consistent', '--yes', '--url', clusters.mainUrls]);
  assert.equal(exported.status, 0, exported.stderr);
  assert.ok(!exported.stdout.includes(SECRET), 'the literal secret is left out of the backup');
  assert.ok(exported.stdout.includes('${env:OFFSETCTL_IT_TRUSTSTORE_PASSWORD}'), 'a config-provider reference stays');
  const backup = parse(exported.stdout) as BackupDoc;
  assert.equal(backup.connectors.length, 10);
  // Each connector it stopped for a moment (the RUNNING and PAUSED ones) is in the audit trail, start and end.
  const audit = (await run(['audit', '-o', 'json'])).stdout.trim().split('\n').map((l) => JSON.parse(l) as { action: string; outcome: string; connector?: string; runId?: string; snapshotId?: string; actor: { via: string } })
    .filter((e) => e.action === 'export');
  const stopped = specs.filter((x) => x.state !== 'STOPPED').map((x) => x.name).sort();
  assert.deepEqual(audit.filter((e) => e.outcome === 'started').map((e) => e.connector).sort(), stopped);
  assert.deepEqual(audit.filter((e) => e.outcome === 'succeeded').map((e) => e.connector).sort(), stopped);
  assert.ok(audit.every((e) => e.actor.via === 'cli' && /^run-/.test(e.runId ?? '')), JSON.stringify(audit));
  for (const c of backup.connectors) {
    const spec = specs.find((s) => s.name === c.name)!;
    assert.equal(c.state, spec.state, `${c.name}'s state`);
    assert.equal(c.offsetsRead, 'stopped', `${c.name}: read while stopped (--consistent)`);
    assert.deepEqual(sorted(c.offsets), sorted((await clusters.main.offsets(c.name)).offsets), `${c.name}'s offsets are the live ones`);
    if (c.name.includes('-mirror-')) assert.deepEqual(c.secretsOmitted, ['sasl.jaas.config']);
  }
  const file = join(dir, 'backup.yaml');
  writeFileSync(file, exported.stdout);
  // Every original running again as it was after its brief stop.
  for (const s of specs) assert.equal((await clusters.main.status(s.name)).connector.state, s.state, `${s.name} is back ${s.state}`);

  // The disaster: offsets and connectors gone (a sink's consumer group with its offsets).
  for (const s of specs) {
    if (s.state !== 'STOPPED') {
      await clusters.main.stop(s.name);
      await clusters.main.waitForStopped(s.name);
    }
    await clusters.main.expect('DELETE', `/connectors/${s.name}/offsets`, [200]);
    await clusters.main.deleteConnector(s.name);
  }

  // Without the secret: refused before anything is created, naming it.
  const refused = await run(['import', file, '--to', clusters.secondUrls, '--yes']);
  assert.equal(refused.status, 2, refused.stderr);
  assert.match(refused.stderr, /mirror-0: the backup left out its secret sasl\.jaas\.config/);
  for (const s of specs) assert.equal((await clusters.second.request('GET', `/connectors/${s.name}`)).status, 404, 'nothing was created');

  const secrets = join(dir, 'secrets.yaml');
  writeFileSync(secrets, `${prefix}-mirror-0:\n  sasl.jaas.config: '${JAAS}'\n${prefix}-mirror-1:\n  sasl.jaas.config: '${JAAS}'\n`);
  // The last one is imported by a process killed before it writes the offsets, then resumed.
  const last = specs.at(-1)!.name;
  const others = specs.slice(0, -1).map((s) => s.name);
  // The same Kafka cluster as the lost originals: the sources are imported knowing they are gone.
  const imported = await run(['import', file, '--to', clusters.secondUrls, '--only', others.join(','), '--secrets-file', secrets, '--allow-duplicate-source', '--yes', '-o', 'json']);
  assert.equal(imported.status, 0, imported.stderr + imported.stdout);
  const killed = await run(['import', file, '--to', clusters.secondUrls, '--only', last, '--secrets-file', secrets, '--allow-duplicate-source', '--yes'], { OFFSETCTL_TEST_KILL_BEFORE_STEP: 'writeOffsets' });
  assert.equal(killed.signal, 'SIGKILL', killed.stderr);
  const runs = JSON.parse((await run(['runs', '--connector', last, '-o', 'json'])).stdout) as Array<{ id: string; status: string; operation: string }>;
  const interrupted = runs.find((r) => r.operation === 'import' && r.status === 'interrupted');
  assert.ok(interrupted, JSON.stringify(runs));
  const resumed = await run(['runs', 'resume', interrupted.id, '--url', clusters.secondUrls, '--yes']);
  assert.equal(resumed.status, 0, resumed.stderr + resumed.stdout);

  for (const c of backup.connectors) {
    const config = (await clusters.second.expect('GET', `/connectors/${c.name}/config`, [200])) as Record<string, string>;
    const expected = { ...c.config, name: c.name, ...(c.secretsOmitted ? { 'sasl.jaas.config': JAAS } : {}) };
    assert.deepEqual(config, expected, `${c.name}'s configuration`);
    await waitFor(`${c.name} ${c.state} on the second cluster`, async () => (await clusters.second.status(c.name)).connector.state === c.state);
    assert.deepEqual(sorted((await clusters.second.offsets(c.name)).offsets), sorted(c.offsets), `${c.name}'s offsets`);
  }

  // No secret anywhere: outputs, and every file of the state folder, in any encoding.
  for (const r of outputs) for (const s of [SECRET, ...ENCODED]) assert.ok(!r.stdout.includes(s) && !r.stderr.includes(s), 'no secret in any output');
  for (const e of readdirSync(stateDir, { recursive: true, withFileTypes: true })) {
    const path = join(e.parentPath ?? (e as unknown as { path: string }).path, e.name);
    if (!statSync(path).isFile()) continue;
    const text = readFileSync(path).toString('latin1');
    for (const s of [SECRET, ...ENCODED]) assert.ok(!text.includes(s), `${path} holds the secret`);
  }
});

test('rollback of an import deletes what it created; --include-secrets keeps the literal secret, with a warning', { timeout: 300_000 }, async () => {
  const name = `${prefix}-src-3`;
  const rolled = await run(['rollback', name, '--url', clusters.secondUrls, '--yes']);
  assert.equal(rolled.status, 0, rolled.stderr + rolled.stdout);
  assert.match(rolled.stdout, /import of .* undone: the connector is deleted/);
  assert.equal((await clusters.second.request('GET', `/connectors/${name}`)).status, 404);

  const withSecrets = await cli(['export', `${prefix}-mirror-0`, '--include-secrets', '--url', clusters.secondUrls]);
  assert.equal(withSecrets.status, 0, withSecrets.stderr);
  assert.ok(withSecrets.stdout.includes(SECRET), 'kept on request');
  assert.match(withSecrets.stderr, /holds the literal value of sasl\.jaas\.config \(--include-secrets\): keep the file like a password/);
});

test('a plain export reads the offsets while the connector runs and says so; import --replace snapshots and replaces the connector of that name', { timeout: 300_000 }, async () => {
  const name = `${prefix}-src-1`;
  assert.equal((await clusters.second.status(name)).connector.state, 'RUNNING', 'imported RUNNING by the first test');
  const exported = await run(['export', name, '--url', clusters.secondUrls]);
  assert.equal(exported.status, 0, exported.stderr);
  const doc = parse(exported.stdout) as BackupDoc;
  assert.equal(doc.connectors[0]?.offsetsRead, 'running');
  assert.equal((await clusters.second.status(name)).connector.state, 'RUNNING', 'a plain export stops nothing');

  // The backup edited: another topic, another position, kept STOPPED (so the position stays put).
  const entry = doc.connectors[0]!;
  entry.config['topic'] = `${prefix}-replaced`;
  entry.state = 'STOPPED';
  entry.offsets = [{ partition: { filename: join(dir, 'in-1.txt') }, offset: { position: 5 } }];
  const file = join(dir, 'replace.yaml');
  writeFileSync(file, JSON.stringify(doc));
  const taken = await run(['import', file, '--to', clusters.secondUrls, '--yes']);
  assert.equal(taken.status, 2, taken.stderr);
  assert.match(taken.stderr, /--replace/);
  assert.equal((await clusters.second.request('GET', `/connectors/${name}/config`)).body?.['topic' as never], `${prefix}-topic-1`, 'refused: nothing replaced');

  const offsetsBefore = (await clusters.second.offsets(name)).offsets;
  const replaced = await run(['import', file, '--to', clusters.secondUrls, '--replace', '--yes']);
  assert.equal(replaced.status, 0, replaced.stderr + replaced.stdout);
  assert.match(replaced.stdout + replaced.stderr, /REPLACES the connector of that name/);
  assert.match(replaced.stdout + replaced.stderr, /its offsets were read while it ran/);
  const config = (await clusters.second.request('GET', `/connectors/${name}/config`)).body as Record<string, string>;
  assert.equal(config['topic'], `${prefix}-replaced`);
  await clusters.second.waitForStopped(name);
  assert.deepEqual((await clusters.second.offsets(name)).offsets, entry.offsets);
  // The replaced connector's offsets were snapshotted first: the import run names the snapshot.
  const runs = JSON.parse((await run(['runs', '--connector', name, '-o', 'json'])).stdout) as Array<{ id: string; operation: string; status: string }>;
  const importRun = runs.find((r) => r.operation === 'import' && r.status === 'succeeded');
  assert.ok(importRun, JSON.stringify(runs));
  const { context } = JSON.parse((await run(['runs', 'show', importRun.id, '-o', 'json'])).stdout) as { context: { snapshotId?: string } };
  assert.match(context.snapshotId ?? '', /^snap-/);
  const kept = JSON.parse((await run(['snapshots', 'show', context.snapshotId!, '-o', 'json'])).stdout) as { offsets: unknown[] };
  assert.deepEqual(kept.offsets, offsetsBefore);
});
