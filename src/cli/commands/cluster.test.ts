// The CLI as an operator runs it: contexts in a temporary config file, and a password that must
// never reach the terminal even when a server echoes it back in an error.
// Real parts: a loopback HTTP server, the CLI in-process.
import { test, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInProcess } from '../../../test/support/in-process.js';

const dir = mkdtempSync(join(tmpdir(), 'offsetctl-cli-'));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function offsetctl(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  const r = await runInProcess(args, { env: { OFFSETCTL_URL: undefined, OFFSETCTL_PASSWORD: undefined, OFFSETCTL_CONFIG: join(dir, 'config.yaml'), ...env } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

// A hostile server: refuses every login and repeats the credentials it received in the message.
const server = createServer((req, res) => {
  const header = req.headers.authorization ?? '';
  const decoded = header.startsWith('Basic ') ? Buffer.from(header.slice(6), 'base64').toString() : header;
  res.statusCode = 401;
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ error_code: 401, message: `User cannot access the resource. (you sent ${decoded} as ${header})` }));
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
after(() => server.close());

const PASSWORD = 'S3cret-pw-never-shown';

test('a refused login exits 2 (a read: nothing ran) with the 401 message and never prints the password', async () => {
  const run = await offsetctl(['connectors', '--url', url, '--user', 'admin', '--password-env', 'CONNECT_PW'], { CONNECT_PW: PASSWORD });
  assert.equal(run.code, 2);
  assert.match(run.stderr, /answered 401: User cannot access the resource\..*check --user/);
  const all = run.stdout + run.stderr;
  assert.ok(!all.includes(PASSWORD), all);
  assert.ok(!all.includes(Buffer.from(PASSWORD).toString('base64')), all);
  assert.ok(!all.includes(Buffer.from(`admin:${PASSWORD}`).toString('base64')), all);
});

test('a failed connection does not print the password either', async () => {
  const run = await offsetctl(['offsets', 'get', 'x', '--url', 'http://127.0.0.1:1', '--user', 'admin'], { OFFSETCTL_PASSWORD: PASSWORD });
  // Refused before anything could change: exit 2 (E_UNREACHABLE).
  assert.equal(run.code, 2);
  assert.match(run.stderr, /E_UNREACHABLE/);
  assert.match(run.stderr, /connection refused/);
  assert.ok(!(run.stdout + run.stderr).includes(PASSWORD));
});

test('--password with a literal value is refused (exit 2) without echoing it', async () => {
  const run = await offsetctl(['connectors', '--url', url, '--user', 'admin', '--password', PASSWORD]);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /--password is not accepted/);
  assert.ok(!(run.stdout + run.stderr).includes(PASSWORD));
});

test('no URL at all: exit 2 and the three ways to give one', async () => {
  const run = await offsetctl(['connectors']);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /E_CONFIG.*--url.*OFFSETCTL_URL.*set-context/);
});

test('contexts: set-context, get-contexts, use-context, current-context, delete-context', async () => {
  let run = await offsetctl(['config', 'set-context', 'lab', '--url', 'http://127.0.0.1:8083', '--user', 'ops', '--password-env', 'LAB_PW']);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /Context lab created .* and made current/);
  run = await offsetctl(['config', 'set-context', 'prod', '--url', 'https://connect.example:8443', '--token-file', 'token.txt', '--ca', 'ca.pem', '--store', 'postgres://alice@db.example:5432/offsetctl']);
  assert.equal(run.code, 0, run.stderr);
  run = await offsetctl(['config', 'get-contexts', '--output', 'json']);
  const list = JSON.parse(run.stdout) as Array<Record<string, unknown>>;
  assert.deepEqual(list.map((c) => [c.name, c.current, c.auth]), [['lab', true, 'basic'], ['prod', false, 'bearer']]);
  assert.equal(list[0]?.['password-env'], 'LAB_PW');
  assert.equal(list[1]?.['token-file'], join(process.cwd(), 'token.txt'));
  run = await offsetctl(['config', 'use-context', 'prod']);
  assert.equal(run.code, 0, run.stderr);
  assert.equal((await offsetctl(['config', 'current-context'])).stdout, 'prod\n');
  run = await offsetctl(['config', 'get-contexts']);
  // The STORE column says which context writes to the team store (issue 30, point 12).
  assert.match(run.stdout, /^CURRENT\s+NAME\s+URL\s+AUTH\s+TLS\s+STORE\s+APPROVAL$/m);
  assert.match(run.stdout, /^\*\s+prod\s+https:\/\/connect\.example:8443\s+bearer\s+ca\s+postgres:\/\/alice@db\.example:5432\/offsetctl$/m);
  assert.match(run.stdout, /^\s+lab\s+http:\/\/127\.0\.0\.1:8083\s+basic \(ops\)\s+local$/m);
  run = await offsetctl(['config', 'use-context', 'nope']);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /context "nope" not found .*known: lab, prod/);
  run = await offsetctl(['config', 'set-context', 'lab', '--password', PASSWORD]);
  assert.equal(run.code, 2);
  assert.ok(!(run.stdout + run.stderr).includes(PASSWORD));
  assert.ok(!readFileSync(join(dir, 'config.yaml'), 'utf8').includes(PASSWORD));
  run = await offsetctl(['config', 'delete-context', 'prod']);
  assert.match(run.stdout, /no current context now/);
  run = await offsetctl(['config', 'current-context']);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /use-context/);
});

test('set-context --url takes a comma-separated list of workers (issue 20, point 11), each one checked', async () => {
  const list = `${url},http://127.0.0.2:9`;
  let run = await offsetctl(['config', 'set-context', 'pair', '--url', ` ${url} , http://127.0.0.2:9 `]);
  assert.equal(run.code, 0, run.stderr);
  run = await offsetctl(['config', 'get-contexts', '--output', 'json']);
  assert.equal((JSON.parse(run.stdout) as Array<{ name: string; url: string }>).find((c) => c.name === 'pair')?.url, list);
  // The list is used as given: the first worker answers (here with its 401).
  run = await offsetctl(['connectors', '--context', 'pair']);
  assert.match(run.stderr, /401/);
  for (const [bad, why] of [[`${url},ftp://x`, /--url "ftp:\/\/x" \(2nd of 2\): expected an http:\/\/ or https:\/\/ URL/], [`${url},http://u:pw@h`, /--url: credentials in the URL are not accepted/], [' , ', /--url is empty/]] as const) {
    run = await offsetctl(['config', 'set-context', 'pair', '--url', bad]);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, why);
  }
  await offsetctl(['config', 'delete-context', 'pair']);
});

test('connectors and offsets get against a worker answering 500 to every GET: exit 2, nothing ran (issue 30, point 21)', async () => {
  const broken = createServer((_req, res) => {
    res.statusCode = 500;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ error_code: 500, message: 'Request timed out' }));
  });
  await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', resolve));
  const at = `http://127.0.0.1:${(broken.address() as AddressInfo).port}`;
  try {
    for (const args of [['connectors'], ['offsets', 'get', 'orders']]) {
      const run = await offsetctl([...args, '--url', at]);
      assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
      assert.match(run.stderr, /E_PREFLIGHT.*500.*nothing was changed/);
    }
  } finally {
    broken.close();
  }
});
