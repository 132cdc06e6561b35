// What `up --plugin` adds to starting the sandbox: the Iceberg REST catalog beside the workers
// when the Iceberg sink is loaded, and plugins added to a sandbox that already runs.
//
// A plugin added to a running sandbox restarts its workers, one at a time (SIGTERM, start on the
// same port with the new plugin.path, wait for /health), so the cluster never goes away and its
// connectors move to the other workers meanwhile; a plain `up` keeps the plugins loaded.
import { parseWorkerRole } from './clusters.js';
import { waitForHealth } from './health.js';
import { ICEBERG_CATALOG_ROLE, startIcebergCatalog } from './iceberg-catalog.js';
import { startWorker, writeSandboxConfig } from './launch.js';
import type { SandboxLayout } from './layout.js';
import { ICEBERG_PLUGIN, resolvePlugins, type LoadedPlugin, type PluginSpec, pluginCoordinates } from './plugins.js';
import { findFreePort, isPortFree } from './ports.js';
import { isSandboxProcess, stopGroups } from './processes.js';
import { expectReady } from './start-processes.js';
import { writeState, type SandboxProcess, type SandboxState } from './state.js';

/** The asked-for plugins that the running sandbox does not load (or loads from other coordinates). */
export function missingPlugins(loaded: readonly LoadedPlugin[] | undefined, wanted: readonly PluginSpec[]): PluginSpec[] {
  return wanted.filter((spec) => !(loaded ?? []).some((l) => l.name === spec.name && l.coordinates.join(' ') === pluginCoordinates(spec).join(' ')));
}

export function needsIcebergCatalog(state: SandboxState): boolean {
  return (state.plugins ?? []).some((p) => p.name === ICEBERG_PLUGIN) && !state.processes.some((p) => p.role === ICEBERG_CATALOG_ROLE);
}

/** Starts the Iceberg REST catalog when the Iceberg sink is loaded and it does not run yet (port kept while free). */
export async function startIcebergCatalogIfNeeded(layout: SandboxLayout, state: SandboxState, assets: string,
  progress: (line: string) => void, timeoutMs: number): Promise<void> {
  if (!needsIcebergCatalog(state)) return;
  const kept = state.iceberg?.port;
  const port = kept !== undefined && (await isPortFree(kept)) ? kept : await findFreePort();
  const record = (p: SandboxProcess): void => {
    state.processes.push(p);
    writeState(layout.stateFile, state);
  };
  await startIcebergCatalog(layout, state, port, assets, record, progress, timeoutMs);
  writeState(layout.stateFile, state);
}

/**
 * Loads `specs` into a running sandbox: resolves the missing ones, re-renders every worker's
 * properties and restarts the workers one by one. Returns the names added (none: nothing done).
 */
export async function addPluginsToRunning(layout: SandboxLayout, state: SandboxState, specs: readonly PluginSpec[], assets: string,
  progress: (line: string) => void, timeoutMs: number): Promise<string[]> {
  const missing = missingPlugins(state.plugins, specs);
  if (missing.length === 0) return [];
  const added = await resolvePlugins(layout, missing, assets, progress);
  state.plugins = [...(state.plugins ?? []).filter((l) => !added.some((a) => a.name === l.name)), ...added];
  const files = writeSandboxConfig(assets, layout, state.ports, state.kafkaVersion, state.plugins);
  writeState(layout.stateFile, state);
  const names = added.map((p) => p.name).join(', ');
  for (let i = 0; i < state.processes.length; i++) {
    const old = state.processes[i] as SandboxProcess;
    const worker = parseWorkerRole(old.role);
    if (!worker) continue;
    progress(`restarting ${old.role} so it loads ${names} (one worker at a time; its connectors move meanwhile)`);
    await stopGroups([old.pid], layout.dir, 20_000);
    const fresh = startWorker(layout, state.kafkaVersion, files, worker.index, old.port, worker.cluster);
    state.processes[i] = fresh;
    writeState(layout.stateFile, state);
    expectReady(fresh, layout, await waitForHealth(`http://127.0.0.1:${fresh.port}`, () => isSandboxProcess(fresh.pid, layout.dir), timeoutMs));
  }
  return added.map((p) => p.name);
}
