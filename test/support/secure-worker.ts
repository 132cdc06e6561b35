// One extra Kafka Connect worker for security tests: HTTPS with required client certificates and
// Basic auth (PropertyFileLoginModule), on the sandbox broker with its own group and internal
// topics, jars from the sandbox lib folder. Certificates are made with openssl and keytool in a
// temp folder. The worker runs in its own process group; stop() kills that group.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { HttpClient } from '../../src/http/client.js';
import { resolveSandboxDir, sandboxLayout } from '../../src/sandbox/layout.js';
import { findFreePort } from '../../src/sandbox/ports.js';
import { libDir } from '../../src/sandbox/jars.js';
import { DEFAULT_KAFKA_VERSION } from '../../src/sandbox/kafka-versions.js';
import { readState } from '../../src/sandbox/state.js';
import { groupAlive, signalGroup, spawnDetached, tailFile } from '../../src/sandbox/processes.js';

export interface SecureWorker {
  url: string;
  dir: string;
  /** PEM files for the client side. */
  caFile: string;
  clientCertFile: string;
  clientKeyFile: string;
  user: string;
  password: string;
  log: string;
  /** An HTTP client with the right CA, client certificate and credentials (for test setup). */
  http: HttpClient;
  stop(): Promise<void>;
}

const STORE_PASSWORD = 'changeit';

export async function startSecureWorker(bootstrap: string, options: { startTimeoutMs?: number } = {}): Promise<SecureWorker> {
  const layout = sandboxLayout(resolveSandboxDir());
  // The running sandbox's release and its jars folder (lib/<version>; lib/ in an older layout).
  const version = readState(layout.stateFile)?.kafkaVersion ?? DEFAULT_KAFKA_VERSION;
  const lib = existsSync(libDir(layout, version)) ? libDir(layout, version) : layout.lib;
  if (!existsSync(lib)) {
    throw new Error(`no sandbox jars in ${lib}: run \`bin/offsetctl sandbox up\` first`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'offsetctl-secure-worker-'));
  makeCertificates(dir);
  const user = 'operator';
  const password = `pw-${randomBytes(9).toString('base64url')}`;
  writeFileSync(join(dir, 'connect.password'), `${user}=${password}\n`, { mode: 0o600 });
  writeFileSync(
    join(dir, 'connect_jaas.conf'),
    `KafkaConnect {\n  org.apache.kafka.connect.rest.basic.auth.extension.PropertyFileLoginModule required\n  file="${join(dir, 'connect.password')}";\n};\n`,
  );
  const port = await findFreePort();
  const id = `offsetctl-secure-${randomBytes(4).toString('hex')}`;
  const properties = join(dir, 'worker.properties');
  writeFileSync(properties, workerProperties({ bootstrap, port, id, dir }));
  const log = join(dir, 'worker.log');
  const pid = spawnDetached(
    'java',
    [
      '-Xms256m',
      '-Xmx512m',
      '-XX:+ExitOnOutOfMemoryError',
      '-Djava.awt.headless=true',
      `-Doffsetctl.secure.worker=${dir}`,
      `-Djava.security.auth.login.config=${join(dir, 'connect_jaas.conf')}`,
      `-Dlog4j2.configurationFile=${join(layout.config, 'log4j2.properties')}`,
      '-cp',
      join(lib, '*'),
      'org.apache.kafka.connect.cli.ConnectDistributed',
      properties,
    ],
    log,
    dir,
  );
  const stop = async () => stopGroup(pid);
  // A test run that dies must not leave the JVM behind.
  process.once('exit', () => signalGroup(pid, 'SIGKILL'));
  const url = `https://127.0.0.1:${port}`;
  const http = new HttpClient({
    auth: { kind: 'basic', username: user, password },
    tls: { ca: read(join(dir, 'ca.crt')), cert: read(join(dir, 'client.crt')), key: read(join(dir, 'client.key')) },
    timeoutMs: 10_000,
  });
  try {
    await waitUntilReady(http, url, pid, log, options.startTimeoutMs ?? 180_000);
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, dir, caFile: join(dir, 'ca.crt'), clientCertFile: join(dir, 'client.crt'), clientKeyFile: join(dir, 'client.key'), user, password, log, http, stop: async () => { await http.close(); await stop(); } };
}

function workerProperties(p: { bootstrap: string; port: number; id: string; dir: string }): string {
  const ssl = 'listeners.https.ssl';
  return [
    `bootstrap.servers=${p.bootstrap}`,
    `group.id=${p.id}`,
    `listeners=https://127.0.0.1:${p.port}`,
    'rest.advertised.host.name=127.0.0.1',
    `rest.advertised.port=${p.port}`,
    'rest.advertised.listener=https',
    `${ssl}.keystore.type=PKCS12`,
    `${ssl}.keystore.location=${join(p.dir, 'worker.p12')}`,
    `${ssl}.keystore.password=${STORE_PASSWORD}`,
    `${ssl}.key.password=${STORE_PASSWORD}`,
    `${ssl}.truststore.type=PKCS12`,
    `${ssl}.truststore.location=${join(p.dir, 'truststore.p12')}`,
    `${ssl}.truststore.password=${STORE_PASSWORD}`,
    `${ssl}.client.auth=required`,
    'rest.extension.classes=org.apache.kafka.connect.rest.basic.auth.extension.BasicAuthSecurityRestExtension',
    'key.converter=org.apache.kafka.connect.json.JsonConverter',
    'value.converter=org.apache.kafka.connect.json.JsonConverter',
    'key.converter.schemas.enable=false',
    'value.converter.schemas.enable=false',
    `config.storage.topic=${p.id}-configs`,
    `offset.storage.topic=${p.id}-offsets`,
    `status.storage.topic=${p.id}-status`,
    'config.storage.replication.factor=1',
    'offset.storage.replication.factor=1',
    'status.storage.replication.factor=1',
    'offset.storage.partitions=1',
    'status.storage.partitions=1',
    'offset.flush.interval.ms=1000',
    'scheduled.rebalance.max.delay.ms=5000',
    'plugin.discovery=service_load',
    '',
  ].join('\n');
}

/** A private CA, a worker certificate for 127.0.0.1/localhost, and a client certificate. */
function makeCertificates(dir: string): void {
  const run = (cmd: string, args: string[]) => execFileSync(cmd, args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '30', '-subj', '/CN=offsetctl-test-ca', '-keyout', 'ca.key', '-out', 'ca.crt',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  const issue = (name: string, cn: string, ext: string) => {
    run('openssl', ['req', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=${cn}`, '-keyout', `${name}.key`, '-out', `${name}.csr`]);
    writeFileSync(join(dir, `${name}.ext`), ext);
    run('openssl', ['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '30', '-extfile', `${name}.ext`, '-out', `${name}.crt`]);
  };
  issue('worker', 'localhost', 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n');
  issue('client', 'offsetctl-operator', 'extendedKeyUsage=clientAuth\n');
  run('openssl', ['pkcs12', '-export', '-in', 'worker.crt', '-inkey', 'worker.key', '-certfile', 'ca.crt', '-name', 'worker', '-passout', `pass:${STORE_PASSWORD}`, '-out', 'worker.p12']);
  // A truststore from `openssl pkcs12 -nokeys` looks empty to Java: keytool makes a trusted-cert entry.
  run('keytool', ['-importcert', '-noprompt', '-alias', 'test-ca', '-file', 'ca.crt', '-keystore', 'truststore.p12', '-storetype', 'PKCS12', '-storepass', STORE_PASSWORD]);
}

async function waitUntilReady(http: HttpClient, url: string, pid: number, log: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    if (!groupAlive(pid)) throw new Error(`the secure Connect worker exited during start-up; end of ${log}:\n${tailFile(log, 40)}`);
    try {
      const res = await http.send({ method: 'GET', url: `${url}/connectors` });
      if (res.status === 200) return;
      last = `${res.status} ${res.body.toString('utf8').slice(0, 200)}`;
    } catch (err) {
      last = (err as Error).message;
    }
    await sleep(1000);
  }
  throw new Error(`the secure Connect worker did not answer within ${timeoutMs} ms (last: ${last}); end of ${log}:\n${tailFile(log, 40)}`);
}

async function stopGroup(pgid: number): Promise<void> {
  signalGroup(pgid, 'SIGTERM');
  const deadline = Date.now() + 20_000;
  while (groupAlive(pgid) && Date.now() < deadline) await sleep(200);
  if (groupAlive(pgid)) signalGroup(pgid, 'SIGKILL');
  const hardDeadline = Date.now() + 5000;
  while (groupAlive(pgid) && Date.now() < hardDeadline) await sleep(100);
}

function read(file: string): string {
  return readFileSync(file, 'utf8');
}
