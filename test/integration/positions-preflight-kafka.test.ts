// The sink pre-flight of `rewind --offsets <file>` and positions share one Kafka settings path:
// the broker checks (partition counts, log ends) run with the context's bootstrap or
// OFFSETCTL_BOOTSTRAP as well as with --bootstrap, and the --kafka-* security settings apply to
// them too. Every refusal here is exit 2 with the connector untouched.
// Real parts: the sandbox's Kafka broker and Connect cluster, a SQLite store file, the CLI in-process.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { runInProcess } from '../support/in-process.js';
import { sandboxRest, startPipeline, tempDir, type ConnectRest, type FilePipeline } from '../support/connect.js';
import { getSandbox } from '../support/sandbox.js';
import { waitForSinkCommitted, waitForSourceCaughtUp } from '../../src/sandbox/index.js';
import { offsetsFile, sorted } from './defects-support.js';

let rest: ConnectRest;
let pipeline: FilePipeline;
let bootstrap: string;
let dir: string;
let beyond: string;

before(async () => {
  rest = await sandboxRest(0);
  bootstrap = (await getSandbox()).bootstrap;
  dir = tempDir('positions-preflight');
  pipeline = await startPipeline(rest, 'positions-preflight', ['a', 'b', 'c']);
  await waitForSourceCaughtUp(rest, pipeline);
  await waitForSinkCommitted(rest, pipeline, 3);
  beyond = offsetsFile([{ partition: { kafka_topic: pipeline.topic, kafka_partition: 99 }, offset: { kafka_offset: 1 } }]);
});
after(async () => pipeline?.remove().catch(() => undefined));

async function refusedUntouched(args: string[], env: NodeJS.ProcessEnv, pattern: RegExp): Promise<string> {
  const offsets = await rest.offsets(pipeline.sink);
  const r = await runInProcess(['rewind', pipeline.sink, '--offsets', beyond, '--yes', '--state-dir', join(dir, 'state'), ...args], { env });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, pattern);
  assert.equal((await rest.status(pipeline.sink)).connector.state, 'RUNNING', 'the connector was never stopped');
  assert.deepEqual(sorted((await rest.offsets(pipeline.sink)).offsets), sorted(offsets.offsets));
  return r.stderr;
}

const NO_PARTITION_99 = (): RegExp => new RegExp(`topic ${pipeline.topic} has 1 partition\\(s\\) \\(0 to 0\\), there is no partition 99`);

test('the context\'s bootstrap enables the broker checks of an offsets file (no --bootstrap needed)', async () => {
  const env = { OFFSETCTL_CONFIG: join(dir, 'config.yaml'), OFFSETCTL_BOOTSTRAP: undefined };
  const set = await runInProcess(['config', 'set-context', 'preflight', '--url', rest.baseUrl, '--bootstrap', bootstrap], { env });
  assert.equal(set.status, 0, set.stderr);
  const stderr = await refusedUntouched(['--context', 'preflight'], env, NO_PARTITION_99());
  assert.doesNotMatch(stderr, /were not checked against the broker/);
});

test('OFFSETCTL_BOOTSTRAP enables them as well', async () => {
  const env = { OFFSETCTL_CONFIG: join(dir, 'none.yaml'), OFFSETCTL_BOOTSTRAP: bootstrap };
  await refusedUntouched(['--url', rest.baseUrl], env, NO_PARTITION_99());
});

test('the --kafka-* security settings apply to the pre-flight: a SASL user without a readable password is refused before Kafka is asked', async () => {
  const env = { OFFSETCTL_CONFIG: join(dir, 'none.yaml'), OFFSETCTL_BOOTSTRAP: undefined, POSITIONS_PREFLIGHT_UNSET: undefined };
  await refusedUntouched(['--url', rest.baseUrl, '--bootstrap', bootstrap, '--kafka-sasl-user', 'ops', '--kafka-password-env', 'POSITIONS_PREFLIGHT_UNSET'], env, /E_CONFIG.*the Kafka password variable POSITIONS_PREFLIGHT_UNSET is not set/);
});

test('without any Kafka configured, the broker checks are skipped with a warning naming every way to configure it', async () => {
  const env = { OFFSETCTL_CONFIG: join(dir, 'none.yaml'), OFFSETCTL_BOOTSTRAP: undefined };
  const file = offsetsFile([{ partition: { kafka_topic: pipeline.topic, kafka_partition: 0 }, offset: { kafka_offset: 1 } }]);
  const r = await runInProcess(['rewind', pipeline.sink, '--offsets', file, '--dry-run', '--url', rest.baseUrl, '--state-dir', join(dir, 'state')], { env });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /warning: partition numbers and log ends were not checked against the broker; pass --bootstrap .*OFFSETCTL_BOOTSTRAP.*context's bootstrap/);
});
