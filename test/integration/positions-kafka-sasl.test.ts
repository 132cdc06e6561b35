// Kafka access with SASL, end to end: a second real single-node cluster with a SASL_PLAINTEXT
// listener (PLAIN and SCRAM users, from the sandbox's jars). offsetctl must authenticate with the
// context's or the flags' credentials — reading the cluster id proves it did, and the id then
// differs from the worker's, so the rewind is refused before anything stops — and a wrong
// password is refused with exit 2 without the password ever being printed.
// Real parts: the sandbox's Kafka broker and Connect cluster, a SQLite store file, the CLI in-process.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInProcess } from '../support/in-process.js';
import { connectFixture, type ConnectFixture, tempDir, uniqueName } from '../support/connect.js';
import { KafkaAdmin } from '../../src/kafka/admin.js';
import { startSecondBroker, type SecondBroker } from '../support/positions-kafka.js';

const PASSWORD = 'ops-s3cret-kafka-pw';
let broker: SecondBroker | undefined;
let cluster: ConnectFixture;
let dir: string;
let sink: string;
let saslClusterId: string;

before(async () => {
  cluster = await connectFixture();
  dir = tempDir('offsetctl-positions-sasl-');
  broker = await startSecondBroker({ sasl: { admin: 'admin-secret', ops: PASSWORD } });
  const admin = new KafkaAdmin({ bootstrap: [broker.bootstrap], sasl: { mechanism: 'SCRAM-SHA-256', username: 'ops', password: PASSWORD } });
  saslClusterId = await admin.clusterId().finally(() => admin.close());
  sink = uniqueName('positions-sasl-sink');
  const res = await cluster.request('POST', '/connectors', { name: sink, initial_state: 'STOPPED', config: { 'connector.class': 'org.apache.kafka.connect.file.FileStreamSinkConnector', file: join(dir, 'out.txt'), topics: 'positions-sasl-none' } });
  assert.equal(res.status, 201, JSON.stringify(res.body));
});

after(async () => {
  await cluster?.request('DELETE', `/connectors/${sink}`);
  await broker?.stop();
});

const env = () => ({ OFFSETCTL_CONFIG: join(dir, 'config.yaml'), OFFSETCTL_TEST_KAFKA_PW: PASSWORD });

test('SCRAM-SHA-512 credentials from a context authenticate (the cluster id is read and compared with the worker\'s)', async () => {
  const set = await runInProcess(['config', 'set-context', 'sasl', '--url', cluster.url, '--bootstrap', (broker as SecondBroker).bootstrap, '--kafka-sasl-mechanism', 'SCRAM-SHA-512', '--kafka-sasl-user', 'ops', '--kafka-password-env', 'OFFSETCTL_TEST_KAFKA_PW'], { env: env() });
  assert.equal(set.status, 0, set.stderr);
  const contexts = await runInProcess(['config', 'get-contexts', '--output', 'json'], { env: env() });
  assert.deepEqual((JSON.parse(contexts.stdout) as Array<Record<string, unknown>>)[0], { name: 'sasl', current: true, url: cluster.url, auth: 'none', bootstrap: (broker as SecondBroker).bootstrap, 'kafka-sasl-mechanism': 'SCRAM-SHA-512', 'kafka-sasl-user': 'ops', 'kafka-password-env': 'OFFSETCTL_TEST_KAFKA_PW' });

  const r = await runInProcess(['rewind', sink, '--state-dir', dir, '--to-earliest', '--dry-run'], { env: env() });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, new RegExp(`over SASL_PLAINTEXT as ops \\(SCRAM-SHA-512\\) is cluster ${saslClusterId}, but the Connect worker`));
  assert.ok(!`${r.stdout}${r.stderr}`.includes(PASSWORD), 'the password was printed');
});

test('PLAIN credentials from flags (password file) authenticate too', async () => {
  const file = join(dir, 'kafka-password');
  writeFileSync(file, `${PASSWORD}\n`);
  const r = await runInProcess(['rewind', sink, '--url', cluster.url, '--state-dir', dir, '--bootstrap', (broker as SecondBroker).bootstrap, '--kafka-sasl-mechanism', 'PLAIN', '--kafka-sasl-user', 'ops', '--kafka-password-file', file, '--to-earliest', '--dry-run'], { env: { OFFSETCTL_CONFIG: join(dir, 'none.yaml') } });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, new RegExp(`as ops \\(PLAIN\\) is cluster ${saslClusterId}`));
});

test('a wrong password is refused (exit 2) without printing it', async () => {
  const wrong = 'not-the-right-pw-4711';
  const r = await runInProcess(['rewind', sink, '--state-dir', dir, '--to-earliest', '--dry-run'], { env: { ...env(), OFFSETCTL_TEST_KAFKA_PW: wrong } });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /E_KAFKA\].*Kafka at .* as ops \(SCRAM-SHA-512\): cannot read the cluster metadata.*SASL authentication failed.*check --kafka-sasl-user/);
  assert.ok(!`${r.stdout}${r.stderr}`.includes(wrong), 'the password was printed');
  assert.equal((await cluster.status(sink)).connector.state, 'STOPPED');
});
