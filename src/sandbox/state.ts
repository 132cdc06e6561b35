// The state file: which ports the sandbox uses and which process groups it started. Ports stay
// in the file after `down`, so the next `up` gets the same URLs when they are still free.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';

export type SandboxRole = 'broker' | `worker-${number}`;

export interface SandboxProcess {
  role: SandboxRole;
  /** Also the process group id: every process is started as a group leader. */
  pid: number;
  /** Broker: the client port; worker: the REST port. */
  port: number;
  log: string;
}

export interface SandboxPorts {
  broker: number;
  controller: number;
  workers: number[];
}

export interface SandboxState {
  version: 1;
  kafkaVersion: string;
  clusterId?: string;
  ports: SandboxPorts;
  processes: SandboxProcess[];
  startedAt?: string;
}

export function readState(file: string): SandboxState | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as SandboxState;
    if (parsed.version !== 1 || !parsed.ports || !Array.isArray(parsed.processes)) return undefined;
    return parsed;
  } catch {
    // A torn or hand-edited file: treat as no state; `up` starts fresh and rewrites it.
    return undefined;
  }
}

export function writeState(file: string, state: SandboxState): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(state, null, 2) + '\n');
  renameSync(tmp, file);
}

export function brokerAddress(state: SandboxState): string {
  return `127.0.0.1:${state.ports.broker}`;
}

export function workerUrls(state: SandboxState): string[] {
  return state.processes.filter((p) => p.role !== 'broker').map((p) => `http://127.0.0.1:${p.port}`);
}
