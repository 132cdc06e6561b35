// Connecting to a secured Kafka Connect worker: HTTPS with a private CA, required client
// certificates and Basic auth. One extra worker is started for this file and stopped after it.
// Real parts: the sandbox's Kafka broker and Connect cluster, the CLI in-process.
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getSandbox } from '../support/sandbox.js';
import type { InProcessResult as CliResult } from '../support/in-process.js';
import { runInProcess } from '../support/in-process.js';
import { startSecureWorker, type SecureWorker } from '../support/secure-worker.js';

let worker: SecureWorker | undefined;
const connector = 'secure-file-source';

before(async () => {
  const { bootstrap } = await getSandbox();
  worker = await startSecureWorker(bootstrap);
  // A real connector with committed offsets, so `offsets get` reads something over mTLS.
  const input = join(worker.dir, 'input.txt');
  writeFileSync(input, 'one\ntwo\nthree\n');
  const res = await worker.http.send({
    method: 'POST',
    url: `${worker.url}/connectors`,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: connector, config: { 'connector.class': 'org.apache.kafka.connect.file.FileStreamSourceConnector', 'tasks.max': '1', file: input, topic: `${connector}-${Date.now()}` } }),
  });
  assert.equal(res.status, 201, res.body.toString());
  // Source offsets are committed about a second after the lines are read.
  const deadline = Date.now() + 90_000;
  for (;;) {
    const got = await worker.http.send({ method: 'GET', url: `${worker.url}/connectors/${connector}/offsets` });
    if (got.status === 200 && got.body.toString().includes('"position":14')) break;
    if (Date.now() > deadline) throw new Error(`the secure worker's connector committed no offsets: ${got.status} ${got.body.toString()}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}, { timeout: 300_000 });

after(async () => {
  await worker?.stop();
});

function w(): SecureWorker {
  if (!worker) throw new Error('the secure worker did not start');
  return worker;
}

function secure(args: string[], options: { password?: string; extra?: string[] } = {}): Promise<CliResult> {
  const sw = w();
  return runInProcess([...args, '--url', sw.url, '--user', sw.user, '--password-env', 'SECURE_CONNECT_PW', ...(options.extra ?? [])], {
    env: { SECURE_CONNECT_PW: options.password ?? sw.password },
  });
}

function neverShows(run: CliResult, secret: string): void {
  const all = run.stdout + run.stderr;
  assert.ok(!all.includes(secret), `the password appeared in the output:\n${all}`);
  assert.ok(!all.includes(Buffer.from(secret).toString('base64')), 'the base64 password appeared in the output');
}

test('mTLS and Basic auth with --ca --cert --key --user --password-env: connectors and offsets get work', async () => {
  const sw = w();
  const tls = ['--ca', sw.caFile, '--cert', sw.clientCertFile, '--key', sw.clientKeyFile];
  const list = await secure(['connectors', '--output', 'json'], { extra: tls });
  assert.equal(list.status, 0, list.stderr);
  assert.deepEqual((JSON.parse(list.stdout) as Array<{ name: string; type: string }>).map((c) => [c.name, c.type]), [[connector, 'source']]);
  neverShows(list, sw.password);

  const run = await secure(['offsets', 'get', connector, '--output', 'json'], { extra: tls });
  assert.equal(run.status, 0, run.stderr);
  assert.deepEqual(JSON.parse(run.stdout), { offsets: [{ partition: { filename: join(sw.dir, 'input.txt') }, offset: { position: 14 } }] });
  neverShows(run, sw.password);
});

test('a wrong password: the 401 message, a non-zero exit, and the password is never printed', async () => {
  const sw = w();
  const wrong = 'Wrong-password-0451';
  const run = await secure(['connectors'], { password: wrong, extra: ['--ca', sw.caFile, '--cert', sw.clientCertFile, '--key', sw.clientKeyFile] });
  // A read refused: nothing ran, exit 2 (issue 30, point 21).
  assert.equal(run.status, 2, run.stderr);
  assert.match(run.stderr, /answered 401: User cannot access the resource\./);
  neverShows(run, wrong);
  neverShows(run, sw.password);
});

test('no --ca for a private CA: a TLS error that suggests --ca', async () => {
  const sw = w();
  const run = await secure(['connectors'], { extra: ['--cert', sw.clientCertFile, '--key', sw.clientKeyFile] });
  // Refused before anything could change: exit 2 (E_UNREACHABLE).
  assert.equal(run.status, 2, run.stderr);
  assert.match(run.stderr, /TLS error .*--ca/);
  neverShows(run, sw.password);
});

test('--insecure connects without --ca', async () => {
  const sw = w();
  const run = await secure(['connectors', '--output', 'json'], { extra: ['--insecure', '--cert', sw.clientCertFile, '--key', sw.clientKeyFile] });
  assert.equal(run.status, 0, run.stderr);
  assert.equal((JSON.parse(run.stdout) as unknown[]).length, 1);
});

test('a context holds the CA, client certificate and credential references; the password stays in the environment', async () => {
  const sw = w();
  const config = join(sw.dir, 'offsetctl-config.yaml');
  const env = { OFFSETCTL_CONFIG: config, OFFSETCTL_URL: '', SECURE_CONNECT_PW: sw.password };
  const set = await runInProcess(['config', 'set-context', 'secure', '--url', sw.url, '--ca', sw.caFile, '--cert', sw.clientCertFile, '--key', sw.clientKeyFile, '--user', sw.user, '--password-env', 'SECURE_CONNECT_PW'], { env });
  assert.equal(set.status, 0, set.stderr);
  assert.ok(!readFileSync(config, 'utf8').includes(sw.password), 'the config file holds no password');
  const run = await runInProcess(['connectors', '--output', 'json'], { env });
  assert.equal(run.status, 0, run.stderr);
  assert.deepEqual((JSON.parse(run.stdout) as Array<{ name: string }>).map((c) => c.name), [connector]);
});

test('no client certificate where the worker requires one: refused during the TLS handshake', async () => {
  const sw = w();
  const run = await secure(['connectors'], { extra: ['--ca', sw.caFile] });
  assert.notEqual(run.status, 0);
  assert.match(run.stderr, /E_UNREACHABLE.*give --cert <pem> and --key <pem>/);
  console.log(`# without a client certificate: ${run.stderr.trim()}`);
  neverShows(run, sw.password);
});
