// `offsetctl sandbox` itself, cheaply: the status JSON of the running sandbox, an idempotent `up`,
// and the refusals that need no second cluster (2 shared cores).
// Real parts: the sandbox's Kafka broker and Connect cluster, a loopback HTTP server, spawns the CLI (sandbox up/down), the CLI in-process (sandbox status).
import * as assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../support/cli.js';
import { runInProcess } from '../support/in-process.js';
import { getSandbox } from '../support/sandbox.js';

test('sandbox status --output json names the running workers and the broker', async () => {
  const sandbox = await getSandbox();
  const cli = await runInProcess(['sandbox', 'status', '--output', 'json']);
  assert.equal(cli.status, 0, cli.stderr);
  type Cluster = { name: string; connect: string[]; bootstrap: string };
  const status = JSON.parse(cli.stdout) as { running: boolean; connect: string[]; bootstrap: string | null; clusters: Cluster[] };
  // This test lane's cluster, listed whatever another lane's file is adding or stopping meanwhile
  // (`running`, `connect` and `bootstrap` are the whole sandbox's and the main cluster's).
  const own = status.clusters.find((c) => c.name === sandbox.cluster);
  assert.deepEqual(own?.connect, sandbox.connect);
  assert.match(own?.bootstrap ?? '', /^127\.0\.0\.1:\d+$/);
  if (status.running) assert.deepEqual(status.connect, status.clusters.find((c) => c.name === 'main')?.connect, 'connect: the main cluster\'s workers');
  for (const url of own?.connect ?? []) {
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
    const health = await fetch(`${url}/health`);
    assert.equal(health.status, 200);
  }
});

test('a second sandbox up reuses the running cluster', { timeout: 120_000 }, async () => {
  const sandbox = await getSandbox();
  const cli = await runCli(['sandbox', 'up', '--output', 'json']);
  assert.equal(cli.status, 0, cli.stderr);
  const result = JSON.parse(cli.stdout) as { reused: boolean; clusters: Array<{ name: string; connect: string[] }>; bootstrap: string };
  assert.equal(result.reused, true);
  assert.deepEqual(result.clusters.find((c) => c.name === sandbox.cluster)?.connect, sandbox.connect, 'this test lane\'s cluster, unchanged');
  assert.equal(result.bootstrap, sandbox.bootstrap);
});

test('sandbox up and status advise commands for the same folder: --dir unless it is the default (issue 20, point 14)', { timeout: 120_000 }, async () => {
  const sandbox = await getSandbox();
  const up = await runCli(['sandbox', 'up', '--dir', sandbox.dir], { env: { OFFSETCTL_SANDBOX_DIR: undefined } });
  assert.equal(up.status, 0, up.stderr);
  const isDefault = sandbox.dir === join(process.env['XDG_CACHE_HOME'] || join(homedir(), '.cache'), 'offsetctl', 'sandbox');
  assert.match(up.stdout, isDefault ? /stop it with `offsetctl sandbox down`$/m : new RegExp(`stop it with \`offsetctl sandbox down --dir ${sandbox.dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\``));
  const dir = mkdtempSync(join(tmpdir(), 'offsetctl-sandbox-empty-'));
  try {
    const status = await runInProcess(['sandbox', 'status', '--dir', dir]);
    assert.match(status.stdout, new RegExp(`start it with \`offsetctl sandbox up --dir ${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\``));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('status and down on a folder without a sandbox', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'offsetctl-sandbox-empty-'));
  try {
    const status = await runInProcess(['sandbox', 'status', '--dir', dir, '--output', 'json']);
    assert.equal(status.status, 0, status.stderr);
    assert.deepEqual(JSON.parse(status.stdout), { running: false, connect: [], bootstrap: null, clusters: [], kafkaVersion: null, dir, plugins: [], teamStore: null });
    const down = await runCli(['sandbox', 'down', '--dir', dir]);
    assert.equal(down.status, 0, down.stderr);
    assert.match(down.stdout, /not running/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('up refuses a broker port that another program holds, naming the port', { timeout: 60_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'offsetctl-sandbox-port-'));
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  try {
    const cli = await runCli(['sandbox', 'up', '--dir', dir, '--workers', '1', '--broker-port', String(port)]);
    assert.notEqual(cli.status, 0);
    assert.match(cli.stderr, /E_SANDBOX_PORT_TAKEN/);
    assert.match(cli.stderr, new RegExp(`port ${port}\\b`));
    const status = await runInProcess(['sandbox', 'status', '--dir', dir, '--output', 'json']);
    assert.equal((JSON.parse(status.stdout) as { running: boolean }).running, false, 'nothing was started');
  } finally {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
