// Figure 13: the console under load. 50 signed-in users (the trusted-proxy sign-in: one session
// per user and replica) load the connectors page, then a preview (a rewind's plan: reads of the
// connector and its offsets, the diff, the page), as fast as their answers come, for a fixed time;
// once against one console replica and once against two on the same team store, the users' requests
// going round-robin over the replicas as a load balancer would. Requests per second and the p99
// latency. Needs the sandbox (Kafka Connect) and the tests' PostgreSQL (OFFSETCTL_TEST_PG). All
// traffic goes to 127.0.0.1. Info only: the figures depend on the machine and its load.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { cli, skippedRow, type BenchOptions, type FigureResult, type FigureRow } from './figure.js';
import { createFileSource, deleteConnector } from './connect-watch.js';
import { timeSpawn } from './process.js';
import { round } from './stats.js';
import { serverFromEnv } from '../src/sandbox/postgres-server.js';

const USERS = 50;
const ID = '13.console-load';
const LABEL = 'console under load: 50 signed-in users';

interface Replica {
  base: string;
  child: ChildProcess;
}
interface Phase {
  requests: number;
  errors: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
}

export async function measureConsoleLoad(options: BenchOptions): Promise<FigureResult> {
  const worker = await runningWorker();
  if (!worker) return { rows: [skippedRow(ID, LABEL, 'info', 'the sandbox is not running (`offsetctl sandbox up`)')], raw: {} };
  const pg = serverFromEnv();
  if (!pg) return { rows: [skippedRow(ID, LABEL, 'info', 'no PostgreSQL: set OFFSETCTL_TEST_PG (two replicas share a team store)')], raw: {} };
  const seconds = options.quick ? 3 : 10;
  const dir = mkdtempSync(join(tmpdir(), 'offsetctl-bench-load-'));
  const database = `bench_load_${randomBytes(4).toString('hex')}`;
  type PgClient = { connect(): Promise<void>; query(q: string): Promise<unknown>; end(): Promise<void> };
  const { Client } = createRequire(import.meta.url)('pg') as { Client: new (url: string) => PgClient };
  const admin = new Client(pg.adminUrl);
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  const name = `bench-load-${process.pid}-${Date.now().toString(36)}`;
  const file = join(dir, 'source.txt');
  writeFileSync(file, 'line 0\nline 1\n');
  const replicas: Replica[] = [];
  const raw: Record<string, unknown> = { users: USERS, seconds };
  try {
    await createFileSource(worker, name, file, `${name}-topic`);
    writeFileSync(
      join(dir, 'console.yaml'),
      `listen: 127.0.0.1:0
store: postgres://${pg.adminUser}@127.0.0.1:${pg.port}/${database}
default-context: sandbox
contexts:
  sandbox:
    url: ${worker}
sign-in:
  proxy:
    user-header: X-Forwarded-Email
    groups-header: X-Forwarded-Groups
    trusted-proxies: [127.0.0.1]
roles:
  - group: platform
    role: operator
`,
    );
    const offsets = JSON.stringify([{ partition: { filename: join(dir, 'elsewhere.txt') }, offset: { position: 7 } }]);
    const rows: FigureRow[] = [];
    for (const count of [1, 2]) {
      const env = { PGPASSWORD: pg.adminPassword, OFFSETCTL_STORE: undefined };
      while (replicas.length < count) replicas.push(await startReplica(join(dir, 'console.yaml'), env));
      const users = await signIn(replicas);
      const page = await load(users, replicas, seconds, (u, r) => fetch(`${r.base}/ctx/sandbox/connectors`, { headers: u.headers }));
      const preview = await load(users, replicas, seconds, (u, r) =>
        fetch(`${r.base}/ctx/sandbox/connectors/${encodeURIComponent(name)}/preview`, {
          method: 'POST',
          headers: { ...u.headers, 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ mode: 'json', offsets, csrf: u.csrf.get(r.base)! }).toString(),
        }),
      );
      raw[`${count}-replica`] = { connectors: page, preview };
      options.log(`  ${count} replica(s): connectors ${page.rps} req/s p99 ${page.p99} ms; preview ${preview.rps} req/s p99 ${preview.p99} ms`);
      for (const [what, phase] of [
        ['connectors page', page],
        ['preview', preview],
      ] as const) {
        rows.push({
          id: `${ID}.${count}.${what === 'preview' ? 'preview' : 'connectors'}`,
          figure: `${what}, ${count} replica${count === 1 ? '' : 's'}: req/s`,
          measured: phase.rps,
          reference: null,
          unit: 'req/s',
          referenceLabel: '',
          ratio: null,
          target: 'info',
          verdict: 'info',
          note: `p50 ${phase.p50} ms, p99 ${phase.p99} ms, ${phase.requests} requests in ${phase.seconds} s, ${phase.errors} errors`,
        } as FigureRow);
      }
    }
    return { rows, raw };
  } finally {
    for (const r of replicas) await stop(r.child);
    await deleteConnector(worker, name).catch(() => undefined);
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
    rmSync(dir, { recursive: true, force: true });
  }
}

interface User {
  headers: Record<string, string>;
  csrf: Map<string, string>;
}

/** Each user's first page on each replica makes its session there and gives its CSRF token. */
async function signIn(replicas: Replica[]): Promise<User[]> {
  const users: User[] = [];
  for (let i = 0; i < USERS; i++) {
    const user: User = { headers: { 'X-Forwarded-Email': `user-${i}@example.com`, 'X-Forwarded-Groups': 'platform' }, csrf: new Map() };
    for (const r of replicas) {
      const html = await (await fetch(`${r.base}/ctx/sandbox/connectors`, { headers: user.headers })).text();
      const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
      if (!csrf) throw new Error(`no CSRF token for ${user.headers['X-Forwarded-Email']} on ${r.base}`);
      user.csrf.set(r.base, csrf);
    }
    users.push(user);
  }
  return users;
}

/** Every user sends one request after the other for `seconds`, round-robin over the replicas. */
async function load(users: User[], replicas: Replica[], seconds: number, send: (u: User, r: Replica) => Promise<Response>): Promise<Phase> {
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const started = performance.now();
  const end = started + seconds * 1000;
  await Promise.all(
    users.map(async (u) => {
      while (performance.now() < end) {
        const r = replicas[next++ % replicas.length]!;
        const t = performance.now();
        const res = await send(u, r).catch(() => undefined);
        await res?.arrayBuffer();
        if (res?.status !== 200) errors++;
        latencies.push(performance.now() - t);
      }
    }),
  );
  const took = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number): number => round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0, 1);
  return { requests: latencies.length, errors, seconds: round(took, 1), rps: round(latencies.length / took, 1), p50: at(0.5), p99: at(0.99) };
}

async function startReplica(config: string, env: NodeJS.ProcessEnv): Promise<Replica> {
  const child = spawn(process.execPath, [cli, 'ui', '--config', config], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stderr!.on('data', (c: Buffer) => {
    if (out.length <= 100_000) out += c.toString('utf8');
  });
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`offsetctl ui did not serve within 30 s: ${out}`)), 30_000);
    child.stdout!.on('data', (c: Buffer) => {
      // The access log goes on for every request: kept only until the address is known.
      if (out.length > 100_000) return;
      out += c.toString('utf8');
      const m = /Sign in at (https?:\/\/\S+?)\/? \(/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`offsetctl ui exited (${code}): ${out}`));
    });
  });
  return { base, child };
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

async function runningWorker(): Promise<string | undefined> {
  const s = await timeSpawn(process.execPath, [cli, 'sandbox', 'status', '--output', 'json'], { timeoutMs: 30_000 });
  try {
    const status = JSON.parse(s.stdout) as { running?: boolean; connect?: string[] };
    return status.running === true ? status.connect?.[0] : undefined;
  } catch {
    return undefined;
  }
}
