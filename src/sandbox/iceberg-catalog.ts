// The sandbox's Iceberg REST catalog, started with `--plugin iceberg-sink`: sandbox/iceberg-rest/
// SandboxRestCatalog.java (a router over iceberg-core's CatalogHandlers, a JdbcCatalog on SQLite
// and a local warehouse) compiled with javac against the Iceberg sink's jars and run as one more
// sandbox process (`iceberg-catalog`), so `down` stops it and a crash is noticed like a worker's.
// Its catalog file and warehouse live in <sandbox>/data/iceberg: a fresh start of the sandbox
// (new Kafka cluster, empty topics) starts with no tables either.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { SandboxError } from './errors.js';
import { waitForHealth } from './health.js';
import { runTool } from './jars.js';
import type { SandboxLayout } from './layout.js';
import { pluginJarFolder, ICEBERG_PLUGIN } from './plugins.js';
import { isSandboxProcess, markerArg, spawnDetached } from './processes.js';
import { expectReady } from './start-processes.js';
import type { SandboxProcess, SandboxState } from './state.js';

export const ICEBERG_CATALOG_ROLE = 'iceberg-catalog';

const SOURCE = 'SandboxRestCatalog.java';
const MAIN_CLASS = 'SandboxRestCatalog';

export interface IcebergCatalogInfo {
  catalog: { uri: string; type: 'rest' };
  /** The local warehouse folder (file:// URI) the catalog puts new tables in. */
  warehouse: string;
  /** The catalog's SQLite file (the JdbcCatalog behind the REST routes). */
  catalogDb: string;
}

export function icebergFolders(layout: SandboxLayout): { root: string; db: string; warehouse: string } {
  const root = join(layout.data, 'iceberg');
  return { root, db: join(root, 'catalog.db'), warehouse: join(root, 'warehouse') };
}

export function icebergInfo(layout: SandboxLayout, port: number): IcebergCatalogInfo {
  const f = icebergFolders(layout);
  return { catalog: { uri: `http://127.0.0.1:${port}`, type: 'rest' }, warehouse: `file://${f.warehouse}`, catalogDb: f.db };
}

/** Compiles the launcher once per source version into <sandbox>/iceberg-rest/<hash>/ (outside plugin.path). */
async function compileLauncher(layout: SandboxLayout, assets: string, progress: (line: string) => void): Promise<string> {
  const source = join(assets, 'iceberg-rest', SOURCE);
  const hash = createHash('sha256').update(readFileSync(source)).digest('hex').slice(0, 16);
  const classes = join(layout.dir, 'iceberg-rest', hash);
  if (existsSync(join(classes, `${MAIN_CLASS}.class`))) return classes;
  progress('compiling the Iceberg REST catalog launcher (sandbox/iceberg-rest) against the Iceberg jars');
  rmSync(join(layout.dir, 'iceberg-rest'), { recursive: true, force: true });
  mkdirSync(classes, { recursive: true });
  const javac = await runTool('javac', ['-nowarn', '-d', classes, '-cp', join(pluginJarFolder(layout, ICEBERG_PLUGIN), '*'), source], layout.dir);
  if (javac.status !== 0) {
    rmSync(classes, { recursive: true, force: true });
    throw new SandboxError('E_SANDBOX_JARS', `compiling the Iceberg REST catalog (sandbox/iceberg-rest/${SOURCE}) failed `
      + `(exit ${javac.status}; a JDK with javac is needed):\n${javac.text.split('\n').slice(-15).join('\n')}`);
  }
  return classes;
}

/** Starts the catalog on `port` and waits until it answers; the process is recorded in the state at once. */
export async function startIcebergCatalog(layout: SandboxLayout, state: SandboxState, port: number, assets: string, record: (p: SandboxProcess) => void,
  progress: (line: string) => void, timeoutMs: number): Promise<void> {
  const classes = await compileLauncher(layout, assets, progress);
  const f = icebergFolders(layout);
  mkdirSync(f.warehouse, { recursive: true });
  mkdirSync(layout.logs, { recursive: true });
  const log = join(layout.logs, `${ICEBERG_CATALOG_ROLE}.log`);
  progress(`starting the Iceberg REST catalog on http://127.0.0.1:${port} (JDBC catalog ${f.db}, warehouse ${f.warehouse})`);
  const classpath = `${join(pluginJarFolder(layout, ICEBERG_PLUGIN), '*')}:${classes}`;
  const args = ['-Xmx256m', '-XX:+ExitOnOutOfMemoryError', markerArg(layout.dir), '-cp', classpath, MAIN_CLASS, String(port), f.db, f.warehouse];
  const pid = spawnDetached('java', args, log, layout.dir);
  const proc: SandboxProcess = { role: ICEBERG_CATALOG_ROLE, pid, port, log };
  record(proc);
  state.iceberg = { port };
  expectReady(proc, layout, await waitForHealth(`http://127.0.0.1:${port}`, () => isSandboxProcess(pid, layout.dir), timeoutMs));
}

/** The catalog's description when it is one of the sandbox's processes. */
export function icebergStatus(layout: SandboxLayout, state: SandboxState): IcebergCatalogInfo | undefined {
  const proc = state.processes.find((p) => p.role === ICEBERG_CATALOG_ROLE);
  return proc ? icebergInfo(layout, proc.port) : undefined;
}
