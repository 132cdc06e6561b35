// Real parts: the sandbox's broker and its two Connect clusters on it (main and second, one Kafka
// cluster id), the tests' PostgreSQL with docs/team.md's role split; alice and bob are two
// processes with their own state folders and database logins. A lock guards the offsets, so its
// key is where they live (src/store/lock-scope.ts): same-named sources whose offsets are in two
// offsets topics are rewound at the same time; same-named sinks share consumer group
// connect-<name> and cannot be; sources whose offsets topic offsetctl cannot know lock the wider key.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConnectFixture, sortedOffsets, tempDir, uniqueName, waitFor } from '../support/connect.js';
import { runCli } from '../support/cli.js';
import { twoClusters } from '../support/move.js';
import { getSandbox } from '../support/sandbox.js';
import { newSplitDatabase, type SplitDatabase, type TestLogin } from '../support/postgres.js';
import { startCli, until } from './defects-support.js';

let main: ConnectFixture;
let second: ConnectFixture;
let db: SplitDatabase;
before(async () => {
  const clusters = await twoClusters();
  main = new ConnectFixture(clusters.main.baseUrl);
  second = new ConnectFixture(clusters.second.baseUrl);
  db = await newSplitDatabase(2);
});
after(async () => {
  await main?.cleanup();
  await second?.cleanup();
});

interface Person {
  run: (args: string[], stdin?: string) => ReturnType<typeof runCli>;
  /** A rewind that holds its lock before its change step until `release()`. */
  hold: (args: string[], stdin: string) => { done: Promise<{ status: number; stderr: string }>; release: () => void };
}

/** An operator on the team store as `login`; or, with `sharedState`, on that state folder's SQLite file (two processes, one store). */
function person(login: TestLogin | undefined, sharedState?: string): Person {
  const dir = tempDir(`offsetctl-lockkeys-${login?.user ?? 'sqlite'}-`);
  const env = login
    ? { OFFSETCTL_CONFIG: join(dir, 'config.yaml'), OFFSETCTL_STORE: db.url(login), OFFSETCTL_URL: undefined, PGPASSWORD: login.password }
    : { OFFSETCTL_CONFIG: join(dir, 'config.yaml'), OFFSETCTL_STORE: undefined, OFFSETCTL_URL: undefined };
  const state = ['--state-dir', sharedState ?? join(dir, 'state')];
  return {
    run: (args, stdin) => runCli([...args, ...state], { env, ...(stdin !== undefined ? { stdin } : {}) }),
    hold: (args, stdin) => {
      const release = join(dir, `release-${Date.now()}`);
      const holdEnv = { ...env, OFFSETCTL_TEST_PAUSE_BEFORE_STEP: 'rewindOffsets', OFFSETCTL_TEST_RELEASE_FILE: release } as NodeJS.ProcessEnv;
      const held = startCli([...args, ...state], holdEnv, Buffer.from(stdin));
      return { done: held.done, release: () => existsSync(release) || writeFileSync(release, '') };
    },
  };
}

/** Waits until `who`'s team store lists a running run of `connector` (the lock is taken). */
async function holding(who: Person, connector: string): Promise<void> {
  await until(`a running run of ${connector}`, async () => {
    const r = await who.run(['runs', '-o', 'json']);
    return r.status === 0 && (JSON.parse(r.stdout) as Array<{ connector: string; status: string }>).some((x) => x.connector === connector && x.status === 'running');
  });
}

/** A FileStreamSource of `name` on `on`, reading `file`, with extra settings; waits for its first offset. */
async function source(on: ConnectFixture, name: string, file: string, extra: Record<string, string> = {}): Promise<void> {
  await on.createConnector(name, { 'connector.class': 'org.apache.kafka.connect.file.FileStreamSourceConnector', 'tasks.max': '1', file, topic: `${name}-topic`, ...extra });
  after(() => on.deleteConnector(name).catch(() => undefined));
  await on.waitRunning(name);
  await waitFor(`${name} to commit an offset`, async () => ((await on.offsets(name)).offsets.length > 0));
}

const target = (file: string, position: number): string => JSON.stringify({ offsets: [{ partition: { filename: file }, offset: { position } }] });
const rewind = (name: string, url: string): string[] => ['rewind', name, '--offsets', '-', '--yes', '--leave-stopped', '--url', url];

test('same-named sources in two offsets topics are rewound at the same time by two operators; without a known topic the wider key refuses', async () => {
  const alice = person(db.operators[0]!);
  const bob = person(db.operators[1]!);
  const name = uniqueName('twinsrc');
  const file = join(tempDir('offsetctl-lockkeys-src-'), 'lines.txt');
  writeFileSync(file, 'a\nb\nc\nd\n');
  // Each Connect cluster keeps this source's offsets in a topic of its own (the connector's offsets.storage.topic).
  await source(main, name, file, { 'offsets.storage.topic': `${name}-offsets-main` });
  await source(second, name, file, { 'offsets.storage.topic': `${name}-offsets-second` });

  const held = alice.hold(rewind(name, main.url), target(file, 0));
  try {
    await holding(alice, name);
    // Alice holds the lock of main's source (paused before its change): bob rewinds second's at the same time.
    const beforeMain = sortedOffsets(await main.offsets(name));
    const bobs = await bob.run([...rewind(name, second.url), '-o', 'json'], target(file, 1));
    assert.equal(bobs.status, 0, bobs.stderr);
    assert.equal((JSON.parse(bobs.stdout) as { status: string }).status, 'succeeded');
    assert.deepEqual(sortedOffsets(await second.offsets(name)), [{ partition: { filename: file }, offset: { position: 1 } }]);
    assert.deepEqual(sortedOffsets(await main.offsets(name)), beforeMain, 'alice has not changed main yet');
  } finally {
    held.release();
  }
  const alices = await held.done;
  assert.equal(alices.status, 0, alices.stderr);
  assert.deepEqual(sortedOffsets(await main.offsets(name)), [{ partition: { filename: file }, offset: { position: 0 } }]);

  // Same-named sources in their Connect clusters' offsets topics: Connect's REST API does not name
  // the topic, so each run locks the Kafka cluster's key for that name: bob waits for alice.
  const wide = uniqueName('widesrc');
  await source(main, wide, file);
  await source(second, wide, file);
  const wideHeld = alice.hold(rewind(wide, main.url), target(file, 0));
  try {
    await holding(alice, wide);
    const refused = await bob.run(rewind(wide, second.url), target(file, 1));
    assert.equal(refused.status, 2, refused.stdout);
    assert.match(refused.stderr, new RegExp(`E_LOCKED.*connector ${wide} on Kafka cluster \\S+ \\(locked through ${main.url.replace(/[.]/g, '\\.')}`));
  } finally {
    wideHeld.release();
  }
  assert.equal((await wideHeld.done).status, 0);

  // With the Kafka cluster known (--bootstrap, or a context's), each Connect cluster is found as
  // its group there, whose members are the workers reached: the same sources lock their own
  // Connect cluster's key, and bob rewinds second's while alice holds main's.
  const kafka = ['--bootstrap', (await getSandbox()).bootstrap];
  const narrowHeld = alice.hold([...rewind(wide, main.url), ...kafka], target(file, 1));
  try {
    await holding(alice, wide);
    const beforeMain = sortedOffsets(await main.offsets(wide));
    const bobs = await bob.run([...rewind(wide, second.url), ...kafka, '-o', 'json'], target(file, 2));
    assert.equal(bobs.status, 0, bobs.stderr);
    assert.deepEqual(sortedOffsets(await second.offsets(wide)), [{ partition: { filename: file }, offset: { position: 2 } }]);
    assert.deepEqual(sortedOffsets(await main.offsets(wide)), beforeMain, 'alice has not changed main yet');
    // Bob's rollback of his own is not refused for alice's lock on the other Connect cluster's same-named source.
    const undo = await bob.run(['rollback', wide, '--yes', '--leave-stopped', '--url', second.url, ...kafka]);
    assert.equal(undo.status, 0, undo.stderr);
    assert.deepEqual(sortedOffsets(await main.offsets(wide)), beforeMain, 'alice has not changed main yet');
    // Bob without the Kafka cluster cannot tell the Connect clusters apart: the wider key waits for alice.
    const blind = await bob.run(rewind(wide, second.url), target(file, 3));
    assert.equal(blind.status, 2, blind.stdout);
    assert.match(blind.stderr, /E_LOCKED.*offsets topic of Connect cluster offsetctl-sandbox/);
  } finally {
    narrowHeld.release();
  }
  const narrowDone = await narrowHeld.done;
  assert.equal(narrowDone.status, 0, narrowDone.stderr);
  assert.deepEqual(sortedOffsets(await main.offsets(wide)), [{ partition: { filename: file }, offset: { position: 1 } }]);
});

test('same-named sinks on two Connect clusters share consumer group connect-<name>: bob is refused while alice rewinds, naming the group', async () => {
  const alice = person(db.operators[0]!);
  const bob = person(db.operators[1]!);
  const feed = await main.createSource(4, { name: uniqueName('sinkfeed') });
  const name = uniqueName('twinsink');
  await main.createSink(feed.topic, { name });
  // The second cluster's same-named sink, stopped (out of the group, so alice's rewind can write it).
  await second.createConnector(name, { 'connector.class': 'org.apache.kafka.connect.file.FileStreamSinkConnector', 'tasks.max': '1', file: join(second.dir, `${name}.out`), topics: feed.topic });
  after(() => second.deleteConnector(name).catch(() => undefined));
  await second.waitRunning(name);
  await second.stop(name);
  await waitFor(`${name} on second to be STOPPED`, async () => (await second.status(name)).connector.state === 'STOPPED');
  const sinkTarget = JSON.stringify({ offsets: [{ partition: { kafka_topic: feed.topic, kafka_partition: 0 }, offset: { kafka_offset: 1 } }] });
  const held = alice.hold(rewind(name, main.url), sinkTarget);
  try {
    await holding(alice, name);
    const refused = await bob.run(rewind(name, second.url), sinkTarget);
    assert.equal(refused.status, 2, refused.stdout);
    assert.match(refused.stderr, new RegExp(`E_LOCKED.*connector ${name} on consumer group connect-${name} on Kafka cluster \\S+ \\(locked through`));
    assert.match(refused.stderr, new RegExp(db.operators[0]!.user));
  } finally {
    held.release();
  }
  const done = await held.done;
  assert.equal(done.status, 0, done.stderr);
});

test('on one SQLite state folder, two processes: same-named sources with their own offsets topics at once; same-named sinks one at a time', async () => {
  const shared = tempDir('offsetctl-lockkeys-shared-');
  const first = person(undefined, shared);
  const other = person(undefined, shared);
  const name = uniqueName('sqlsrc');
  const file = join(tempDir('offsetctl-lockkeys-sqlsrc-'), 'lines.txt');
  writeFileSync(file, 'a\nb\nc\n');
  await source(main, name, file, { 'offsets.storage.topic': `${name}-offsets-main` });
  await source(second, name, file, { 'offsets.storage.topic': `${name}-offsets-second` });
  const held = first.hold(rewind(name, main.url), target(file, 0));
  try {
    await holding(first, name);
    const at = await other.run(rewind(name, second.url), target(file, 1));
    assert.equal(at.status, 0, at.stderr);
  } finally {
    held.release();
  }
  assert.equal((await held.done).status, 0);

  const feed = await main.createSource(3, { name: uniqueName('sqlfeed') });
  const sink = uniqueName('sqlsink');
  await main.createSink(feed.topic, { name: sink });
  await second.createConnector(sink, { 'connector.class': 'org.apache.kafka.connect.file.FileStreamSinkConnector', 'tasks.max': '1', file: join(second.dir, `${sink}.out`), topics: feed.topic });
  after(() => second.deleteConnector(sink).catch(() => undefined));
  await second.waitRunning(sink);
  await second.stop(sink);
  await waitFor(`${sink} on second to be STOPPED`, async () => (await second.status(sink)).connector.state === 'STOPPED');
  const sinkTarget = JSON.stringify({ offsets: [{ partition: { kafka_topic: feed.topic, kafka_partition: 0 }, offset: { kafka_offset: 1 } }] });
  const heldSink = first.hold(rewind(sink, main.url), sinkTarget);
  try {
    await holding(first, sink);
    const refused = await other.run(rewind(sink, second.url), sinkTarget);
    assert.equal(refused.status, 2, refused.stdout);
    assert.match(refused.stderr, new RegExp(`E_LOCKED.*connector ${sink} on consumer group connect-${sink} on Kafka cluster`));
  } finally {
    heldSink.release();
  }
  assert.equal((await heldSink.done).status, 0);
});
