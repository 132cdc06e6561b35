// `offsetctl sandbox logs`: the tail of each process log, optionally followed as it grows.
import { existsSync, openSync, readSync, closeSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { clusterOrder, isLaneCluster, OTHER_BROKER_ROLE, workerRole } from './clusters.js';
import { SandboxError } from './errors.js';
import { resolveSandboxDir, sandboxLayout } from './layout.js';
import { tailFile } from './processes.js';
import { clusterPorts, readState } from './state.js';

export interface SandboxLogsOptions {
  dir?: string;
  /** `broker`, `worker-1`, `second-worker-1`, `other-broker`, ...; all processes when absent. */
  role?: string;
  lines?: number;
  follow?: boolean;
  write?: (text: string) => void;
  signal?: AbortSignal;
}

export function sandboxLogFiles(dir?: string): Array<{ role: string; file: string }> {
  const resolved = resolveSandboxDir(dir);
  const layout = sandboxLayout(resolved);
  const state = readState(layout.stateFile);
  // Every process the state knows of (running or stopped since), and its log if there is one.
  const roles = state ? [
    'broker', ...state.ports.workers.map((_p, i) => workerRole('main', i + 1)),
    ...(state.ports.secondWorkers ?? []).map((_p, i) => workerRole('second', i + 1)),
    ...clusterOrder(Object.keys(state.ports.lanes ?? {})).filter(isLaneCluster)
      .flatMap((lane) => clusterPorts(state.ports, lane).map((_p, i) => workerRole(lane, i + 1))),
    ...(state.ports.other ? [OTHER_BROKER_ROLE, ...state.ports.other.workers.map((_p, i) => workerRole('other', i + 1))] : []),
    ...(state.iceberg ? ['iceberg-catalog'] : []),
  ] : [];
  return roles.map((role) => ({ role, file: join(layout.logs, `${role}.log`) })).filter((l) => existsSync(l.file));
}

export async function sandboxLogs(options: SandboxLogsOptions = {}): Promise<void> {
  const write = options.write ?? ((text: string) => process.stdout.write(text));
  let files = sandboxLogFiles(options.dir);
  if (options.role && files.length > 0 && !files.some((f) => f.role === options.role)) {
    // The sandbox runs; the name is what is wrong.
    throw new SandboxError('E_USAGE', `no sandbox process "${options.role}": the processes are ${files.map((f) => f.role).join(', ')}`);
  }
  if (options.role) files = files.filter((f) => f.role === options.role);
  if (files.length === 0) {
    throw new SandboxError('E_SANDBOX_NOT_RUNNING', `no sandbox logs${options.role ? ` for ${options.role}` : ''} in ${resolveSandboxDir(options.dir)}: run \`offsetctl sandbox up\` first`);
  }
  const prefix = files.length > 1;
  for (const { role, file } of files) {
    const tail = tailFile(file, options.lines ?? 50);
    if (tail) write(prefixLines(tail + '\n', prefix ? role : undefined));
  }
  if (!options.follow) return;
  const offsets = new Map(files.map((f) => [f.file, statSync(f.file).size]));
  // Poll twice a second: cheap, and works where inotify is not available.
  while (!options.signal?.aborted) {
    for (const { role, file } of files) {
      const size = existsSync(file) ? statSync(file).size : 0;
      const from = offsets.get(file) ?? 0;
      if (size > from) {
        write(prefixLines(readRange(file, from, size), prefix ? role : undefined));
        offsets.set(file, size);
      } else if (size < from) offsets.set(file, 0); // truncated by a fresh `up`
    }
    await sleep(500);
  }
}

function readRange(file: string, from: number, to: number): string {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(to - from);
    readSync(fd, buffer, 0, buffer.length, from);
    return buffer.toString('utf8');
  } finally {
    closeSync(fd);
  }
}

function prefixLines(text: string, role: string | undefined): string {
  if (!role) return text;
  return text.replace(/^(?=.)/gm, `${role} | `);
}
