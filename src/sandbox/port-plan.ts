// Which ports a fresh start uses: explicit ones must be free (else a clear refusal), ports from
// the previous state are kept when still free (stable URLs across up/down), the rest are new.
import { SandboxError } from './errors.js';
import { findFreePort, isPortFree } from './ports.js';
import type { SandboxPorts } from './state.js';

export interface PortRequest {
  brokerPort?: number;
  connectPort?: number;
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
  const reuseOrNew = async (port: number | undefined): Promise<number> => {
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
  const broker = request.brokerPort !== undefined ? await explicit(request.brokerPort, 'broker') : await reuseOrNew(previous?.broker);
  const workerPorts: number[] = [];
  for (let i = 0; i < workers; i++) {
    workerPorts.push(request.connectPort !== undefined
      ? await explicit(request.connectPort + i, `Connect worker ${i + 1} REST`)
      : await reuseOrNew(previous?.workers[i]));
  }
  const controller = await reuseOrNew(previous?.controller);
  return { broker, controller, workers: workerPorts };
}
