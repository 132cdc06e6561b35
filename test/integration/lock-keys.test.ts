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

function person(login: TestLogin): Person {
  const dir = tempDir(`offsetctl-lockkeys-${login.user}-`);
  const env = { OFFSETCTL_CONFIG: join(dir, 'config.yaml'), OFFSETCTL_STORE: db.url(login), OFFSETCTL_URL: undefined, PGPASSWORD: login.password };
  const state = ['--state-dir', join(dir, 'state')];
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
