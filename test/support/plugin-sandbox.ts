// The plugins sandbox (`sandbox up --plugin … --cdc-postgres`, docs/sandbox.md): which real plugins
// its workers have and where its CDC PostgreSQL listens. A test file that needs a plugin skips
// with the reason when the running sandbox lacks it, and fails instead when
// OFFSETCTL_REQUIRE_PLUGINS=1 (the plugins lane of CI, where a skip would hide a broken setup).
import type { TestContext } from 'node:test';
import { createRequire } from 'node:module';
import { runCli } from './cli.js';

const requireCjs = createRequire(import.meta.url);

export interface PluginSandbox {
  connect: string[];
  bootstrap: string;
  plugins: string[];
  /** The CDC PostgreSQL: a loopback superuser login without a password. */
  cdc?: { url: string; host: string; port: number; user: string };
  /** The Iceberg REST catalog the iceberg-sink plugin brings. */
  iceberg?: { catalog: { uri: string } };
}

let cached: Promise<PluginSandbox> | undefined;

export function pluginSandbox(): Promise<PluginSandbox> {
  cached ??= (async () => {
    const cli = await runCli(['sandbox', 'status', '--output', 'json']);
    const s = JSON.parse(cli.stdout) as { running?: boolean; connect?: string[]; bootstrap?: string; plugins?: Array<{ name: string }>; cdc?: PluginSandbox['cdc']; iceberg?: PluginSandbox['iceberg'] };
    if (s.running !== true || !s.connect?.length || !s.bootstrap) throw new Error(`the sandbox is not running: ${cli.stdout} ${cli.stderr}`);
    return { connect: s.connect, bootstrap: s.bootstrap, plugins: (s.plugins ?? []).map((p) => p.name), ...(s.cdc ? { cdc: s.cdc } : {}), ...(s.iceberg ? { iceberg: s.iceberg } : {}) };
  })();
  return cached;
}

/**
 * The sandbox when it has these plugins (and the CDC PostgreSQL when asked); otherwise the test
 * is skipped saying how to start such a sandbox, or fails under OFFSETCTL_REQUIRE_PLUGINS=1.
 */
export async function requirePlugins(t: TestContext, names: string[], options: { cdc?: boolean } = {}): Promise<PluginSandbox | undefined> {
  const sandbox = await pluginSandbox();
  const missing = names.filter((n) => !sandbox.plugins.includes(n));
  if (options.cdc && !sandbox.cdc) missing.push('--cdc-postgres');
  if (missing.length === 0) return sandbox;
  const why = `the running sandbox lacks ${missing.join(', ')}: start one with \`offsetctl sandbox up ${names.map((n) => `--plugin ${n}`).join(' ')}${options.cdc ? ' --cdc-postgres' : ''}\` (OFFSETCTL_SANDBOX_DIR for a sandbox of its own)`;
  if (process.env.OFFSETCTL_REQUIRE_PLUGINS === '1') throw new Error(`OFFSETCTL_REQUIRE_PLUGINS=1 but ${why}`);
  t.skip(why);
  return undefined;
}

interface Pool {
  query<R = Record<string, unknown>>(text: string, values?: unknown[]): Promise<{ rows: R[] }>;
  end(): Promise<void>;
}

/** A connection to a database of the CDC PostgreSQL (its superuser, loopback trust). */
export function cdcPool(cdc: NonNullable<PluginSandbox['cdc']>, database: string): Pool {
  const { Pool } = requireCjs('pg') as { Pool: new (c: Record<string, unknown>) => Pool & { on(e: string, f: () => void): void } };
  const pool = new Pool({ host: cdc.host, port: cdc.port, user: cdc.user, database, max: 2 });
  pool.on('error', () => undefined);
  return pool;
}
