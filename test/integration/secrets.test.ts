// Planted secrets (a Basic password, a bearer token, a private key's content, a password inside a
// URL, a Kafka SASL password) never appear in stdout, stderr, JSON output, the journal, snapshots or any other file of the
// state folder: every artefact of the runs is grepped for them. TLS is verified by default and
// `--insecure` warns every time. docs/reliability.md, "Secrets".
// Real parts: the sandbox's Kafka broker and Connect cluster, a SQLite store file, the CLI in-process.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInProcess } from '../support/in-process.js';
import { type ConnectFixture, connectFixture, tempDir } from '../support/connect.js';
import { FaultProxy } from '../support/proxy.js';
import { startSecondBroker, type SecondBroker } from '../support/positions-kafka.js';

const PASSWORD = 'pw-Planted-7f3a91c2';
const TOKEN = 'tok-Planted-d81b55e0';
const KEY_BODY = 'MIIPlantedKeyMaterial0123456789abcdefXYZ';
const URL_PASSWORD = 'urlpw-Planted-55aa';
const SASL_PASSWORD = 'saslpw-Planted-c0ffee42';
const SECRETS = [PASSWORD, TOKEN, KEY_BODY, URL_PASSWORD, SASL_PASSWORD];
// What a careless encoder would leak: Basic's base64 of user:password.
const ENCODED = [Buffer.from(`ops:${PASSWORD}`).toString('base64')];

let cluster: ConnectFixture;
let source: { name: string; file: string };
let saslBroker: SecondBroker | undefined;
const outputs: string[] = [];

before(async () => {
  cluster = await connectFixture();
  source = await cluster.createSource(3);
});
after(async () => {
  await cluster?.cleanup();
  await saslBroker?.stop();
});

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const path = join(e.parentPath ?? (e as unknown as { path: string }).path, e.name);
    if (statSync(path).isFile()) out.push(path);
  }
  return out;
}

function assertClean(where: string, text: string | Buffer): void {
  const haystack = Buffer.isBuffer(text) ? text.toString('latin1') : text;
  for (const secret of [...SECRETS, ...ENCODED]) assert.ok(!haystack.includes(secret), `${where} contains a planted secret`);
}

test('a run with a Basic password, then one with a bearer token and a client key: no secret in any output or stored file', async () => {
  const state = tempDir('offsetctl-secrets-');
  const secretsDir = tempDir('offsetctl-secret-files-');
  const keyFile = join(secretsDir, 'client.key');
  writeFileSync(keyFile, `-----BEGIN PRIVATE KEY-----\n${KEY_BODY}\n-----END PRIVATE KEY-----\n`);
  const reports = tempDir('offsetctl-reports-');
  const offsets = JSON.stringify({ offsets: [{ partition: { filename: join(cluster.dir, 'secret-marker.txt') }, offset: { position: 1 } }] });

  // Through a proxy of the test's own, to see that the secrets really went to Connect.
  const wire = await FaultProxy.start(cluster.url);
  after(() => wire.close());
  const basic = await runInProcess(['rewind', source.name, '--offsets', '-', '--yes', '--url', wire.url, '--state-dir', state, '--user', 'ops', '--password-env', 'PLANTED_PW', '--output', 'json'], { stdin: offsets, env: { PLANTED_PW: PASSWORD } });
  assert.equal(basic.status, 0, basic.stderr);
  outputs.push(basic.stdout, basic.stderr);
  const runId = (JSON.parse(basic.stdout) as { runId: string }).runId;

  const bearer = await runInProcess(['reset', source.name, '--yes', '--url', wire.url, '--state-dir', state, '--token-env', 'PLANTED_TOKEN', '--key', keyFile, '--cert', keyFile], { env: { PLANTED_TOKEN: TOKEN } });
  outputs.push(bearer.stdout, bearer.stderr);

  // A failing run prints more (errors, hints): make one fail on purpose, with the secrets loaded.
  const failing = await runInProcess(['rewind', 'no-such-connector-zz', '--offsets', '-', '--yes', '--url', cluster.url, '--state-dir', state, '--user', 'ops', '--password-env', 'PLANTED_PW'], { stdin: offsets, env: { PLANTED_PW: PASSWORD } });
  assert.equal(failing.status, 2);
  outputs.push(failing.stdout, failing.stderr);

  // A URL with a password in it is refused, and the refusal does not repeat it.
  const inUrl = await runInProcess(['connectors', '--url', `http://ops:${URL_PASSWORD}@127.0.0.1:1`, '--state-dir', state]);
  assert.equal(inUrl.status, 2);
  assert.match(inUrl.stderr, /credentials in the URL are not accepted/);
  outputs.push(inUrl.stdout, inUrl.stderr);

  for (const args of [['runs', 'show', runId], ['runs'], ['snapshots']]) {
    for (const format of ['json', 'text']) {
      const r = await runInProcess([...args, '--state-dir', state, '--output', format]);
      assert.equal(r.status, 0, r.stderr);
      outputs.push(r.stdout, r.stderr);
    }
  }
  // A workflow run with a JUnit and a JSON report, the bearer token loaded.
  const junit = join(reports, 'report.xml');
  const wf = await runInProcess(['workflow', 'run', 'workflows/rewind-connector-offsets.arazzo.yaml', '--server', cluster.url, '--input', `connectorName=${source.name}`, '--input', `offsets=${JSON.stringify([{ partition: { filename: join(cluster.dir, 'secret-marker.txt') }, offset: { position: 2 } }])}`, '--token-env', 'PLANTED_TOKEN', '--junit', junit, '--output', 'json'], { env: { PLANTED_TOKEN: TOKEN } });
  outputs.push(wf.stdout, wf.stderr);

  outputs.forEach((text, i) => { assertClean(`output #${i}`, text); });
  const stored = filesUnder(state);
  assert.ok(stored.some((f) => f.endsWith('.db')), 'the journal and snapshots were written');
  for (const file of [...stored, ...filesUnder(reports)]) assertClean(file, readFileSync(file));
  // The planted values were really used: both went to Connect on the wire, and nowhere else.
  assert.ok(wire.sent.includes(`authorization: Basic ${ENCODED[0]}`), 'the Basic password was sent');
  assert.ok(wire.sent.includes(`authorization: Bearer ${TOKEN}`), 'the token was sent');
});

test('TLS is verified by default; --insecure warns on every command', async () => {
  const verified = await runInProcess(['connectors', '--url', cluster.url]);
  assert.doesNotMatch(verified.stderr, /not verified/);
  for (let i = 0; i < 2; i++) {
    const r = await runInProcess(['connectors', '--url', cluster.url, '--insecure', '--output', 'json']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /warning: TLS certificates are not verified \(--insecure\)/);
    JSON.parse(r.stdout);
  }
});

test('a Kafka SASL password (a context\'s, then flags\' password file) is in no output, report, config or stored file', { timeout: 240_000 }, async () => {
  // A real SASL_PLAINTEXT listener: a second single-node cluster from the sandbox's jars.
  saslBroker = await startSecondBroker({ sasl: { admin: 'admin-secret', ops: SASL_PASSWORD } });
  const state = tempDir('offsetctl-secrets-sasl-');
  const config = join(state, '..', `${state.split('/').at(-1)}-config.yaml`);
  const reports = tempDir('offsetctl-reports-sasl-');
  const passwordFile = join(tempDir('offsetctl-secret-files-'), 'kafka-password');
  writeFileSync(passwordFile, `${SASL_PASSWORD}\n`);
  const env = { OFFSETCTL_CONFIG: config, PLANTED_SASL_PW: SASL_PASSWORD };
  const sink = await cluster.createSink(`${source.name}-topic`);
  const seen: string[] = [];
  const keep = <T extends { stdout: string; stderr: string }>(r: T): T => { seen.push(r.stdout, r.stderr); return r; };

  const set = keep(await runInProcess(['config', 'set-context', 'sasl', '--url', cluster.url, '--bootstrap', saslBroker.bootstrap, '--kafka-sasl-mechanism', 'SCRAM-SHA-512', '--kafka-sasl-user', 'ops', '--kafka-password-env', 'PLANTED_SASL_PW'], { env }));
  assert.equal(set.status, 0, set.stderr);
  for (const args of [['config', 'get-contexts', '--output', 'json'], ['config', 'get-contexts']]) keep(await runInProcess(args, { env }));
  // The positions commands read the cluster id over SASL; it is another cluster than the
  // worker's, so each is refused (exit 2) after authenticating, in text, JSON and JUnit.
  for (const output of ['text', 'json']) {
    const r = keep(await runInProcess(['rewind', sink.name, '--to-earliest', '--yes', '--state-dir', state, '--output', output], { env }));
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr + r.stdout, /as ops \(SCRAM-SHA-512\) is cluster/, 'authenticated with the planted password');
  }
  const flags = keep(await runInProcess(['reset', sink.name, '--to-latest', '--yes', '--url', cluster.url, '--bootstrap', saslBroker.bootstrap, '--kafka-sasl-mechanism', 'PLAIN', '--kafka-sasl-user', 'ops', '--kafka-password-file', passwordFile, '--state-dir', state], { env: { OFFSETCTL_CONFIG: join(state, 'none.yaml') } }));
  assert.equal(flags.status, 2, flags.stderr);
  const wrong = keep(await runInProcess(['rewind', sink.name, '--to-earliest', '--dry-run', '--state-dir', state], { env: { ...env, PLANTED_SASL_PW: `${SASL_PASSWORD}-wrong` } }));
  assert.equal(wrong.status, 2);
  assert.match(wrong.stderr, /SASL authentication failed/);
  // A workflow run with the Kafka SASL flags loaded, its JUnit report kept as a file.
  const junit = keep(await runInProcess(['workflow', 'run', 'workflows/rewind-connector-offsets.arazzo.yaml', '--server', cluster.url, '--input', 'connectorName=no-such-connector-sasl', '--input', 'offsets=[]', '--kafka-security-protocol', 'SASL_PLAINTEXT', '--kafka-sasl-mechanism', 'SCRAM-SHA-256', '--kafka-sasl-user', 'ops', '--kafka-password-env', 'PLANTED_SASL_PW', '--state-dir', state, '--output', 'junit'], { env }));
  assert.match(junit.stdout, /<testsuite/);
  writeFileSync(join(reports, 'report.xml'), junit.stdout);
  for (const args of [['runs'], ['snapshots']]) for (const output of ['json', 'text']) keep(await runInProcess([...args, '--state-dir', state, '--output', output], { env }));

  seen.forEach((text, i) => { assert.ok(!text.includes(SASL_PASSWORD), `output #${i} contains the SASL password`); });
  const stored = [config, ...filesUnder(state), ...filesUnder(reports)];
  for (const file of stored) assert.ok(!readFileSync(file).toString('latin1').includes(SASL_PASSWORD), `${file} contains the SASL password`);
  assert.ok(readFileSync(config, 'utf8').includes('PLANTED_SASL_PW'), 'the context stores where the password is, not the password');
});
