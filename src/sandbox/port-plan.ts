// Which ports a fresh start uses: explicit ones must be free (else a clear refusal), ports from
// the previous state are kept when still free (stable URLs across up/down), the rest are new.
import { SandboxError } from './errors.js';
import { findFreePort, isPortFree } from './ports.js';
import type { SandboxPorts } from './state.js';

export interface PortRequest {
  brokerPort?: number;
  connectPort?: number;
  /** Workers of the second Connect cluster (`--clusters 2`); none when absent. */
  secondWorkers?: number;
  /** Workers of the other Kafka cluster's Connect cluster (`--other-kafka`); no other cluster when absent. */
  otherWorkers?: number;
  /** The test lanes' clusters to plan (`lane-2` …) and the workers of each. */
  lanes?: { names: readonly string[]; workers: number };
}

export async function choosePorts(previous: SandboxPorts | undefined, workers: number, request: PortRequest): Promise<SandboxPorts> {
  const taken = new Set<number>();
  const explicit = async (port: number, what: string): Promise<number> => {
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw new SandboxError('E_SANDBOX_PORT_TAKEN', `${what} port ${port} is not a valid TCP port`);
    if (taken.has(port) || !(await isPortFree(port))) {
      throw new SandboxError('E_SANDBOX_PORT_TAKEN', `port ${port} (${what}) on 127.0.0.1 is already in use by another program: stop it or choose another port`);
    }
    taken.add(port);
    return port;
  };
  const reuseOrNew = reuseOrNewIn(taken);
  const broker = request.brokerPort !== undefined ? await explicit(request.brokerPort, 'broker') : await reuseOrNew(previous?.broker);
  const workerPorts: number[] = [];
  for (let i = 0; i < workers; i++) {
    workerPorts.push(request.connectPort !== undefined
      ? await explicit(request.connectPort + i, `Connect worker ${i + 1} REST`)
      : await reuseOrNew(previous?.workers[i]));
  }
  const controller = await reuseOrNew(previous?.controller);
  const ports: SandboxPorts = { broker, controller, workers: workerPorts };
  const more = await choosePortsFor(previous, request, reuseOrNew);
  return { ...ports, ...more };
}

/**
 * Ports for the second, the other and the lanes' clusters only, for adding them to a running sandbox: the
 * running processes' ports are taken (not free), so they are never chosen.
 */
export async function chooseAddedPorts(
  previous: SandboxPorts | undefined,
  request: Pick<PortRequest, 'secondWorkers' | 'otherWorkers' | 'lanes'>,
): Promise<AddedPorts> {
  const taken = new Set<number>(previous ? [previous.broker, previous.controller, ...previous.workers] : []);
  return choosePortsFor(previous, request, reuseOrNewIn(taken));
}

/** The previous port when it is still free and not chosen yet, else a new free one; each is added to `taken`. */
function reuseOrNewIn(taken: Set<number>): (port: number | undefined) => Promise<number> {
  return async (port) => {
    if (port !== undefined && !taken.has(port) && (await isPortFree(port))) {
      taken.add(port);
      return port;
    }
    for (;;) {
      const fresh = await findFreePort();
      if (!taken.has(fresh)) {
        taken.add(fresh);
        return fresh;
      }
    }
  };
}

type AddedPorts = Pick<SandboxPorts, 'secondWorkers' | 'other' | 'lanes'>;

async function choosePortsFor(
  previous: SandboxPorts | undefined,
  request: PortRequest,
  reuseOrNew: (port: number | undefined) => Promise<number>,
): Promise<AddedPorts> {
  const out: AddedPorts = {};
  if (request.secondWorkers) {
    out.secondWorkers = [];
    for (let i = 0; i < request.secondWorkers; i++) out.secondWorkers.push(await reuseOrNew(previous?.secondWorkers?.[i]));
  }
  if (request.otherWorkers) {
    const broker = await reuseOrNew(previous?.other?.broker);
    const controller = await reuseOrNew(previous?.other?.controller);
    const workers: number[] = [];
    for (let i = 0; i < request.otherWorkers; i++) workers.push(await reuseOrNew(previous?.other?.workers[i]));
    out.other = { broker, controller, workers };
  }
  if (request.lanes && request.lanes.names.length > 0) {
    out.lanes = {};
    for (const lane of request.lanes.names) {
      const ports: number[] = [];
      for (let i = 0; i < request.lanes.workers; i++) ports.push(await reuseOrNew(previous?.lanes?.[lane]?.[i]));
      out.lanes[lane] = ports;
    }
  }
  return out;
}
