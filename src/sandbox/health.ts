// Readiness: a worker is ready when GET /health answers 200 (Kafka 3.9+, KIP-1017); a worker
// before 3.9 has no /health (404) and is ready when GET /connectors answers 200, which its REST
// server does once the herder has started. The broker is ready when its client port accepts connections. Both waits watch the process so a crash ends them at once.
import { setTimeout as sleep } from 'node:timers/promises';
import { isListening } from './ports.js';

export type WorkerHealth = { status: number; body: string } | { status: 0; body: string };

export async function probeHealth(url: string, timeoutMs = 2000): Promise<WorkerHealth> {
  try {
    const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(timeoutMs) });
    const body = await res.text();
    if (res.status !== 404) return { status: res.status, body };
    const older = await fetch(`${url}/connectors`, { signal: AbortSignal.timeout(timeoutMs) });
    return { status: older.status, body: await older.text() };
  } catch (err) {
    return { status: 0, body: (err as Error).message };
  }
}

export type WaitOutcome = { ready: true } | { ready: false; reason: 'died' | 'timeout'; last: string };

export async function waitForHealth(url: string, alive: () => boolean, timeoutMs: number): Promise<WaitOutcome> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer yet';
  for (;;) {
    const health = await probeHealth(url);
    if (health.status === 200) return { ready: true };
    last = health.status === 0 ? health.body : `${health.status} ${health.body}`;
    if (!alive()) return { ready: false, reason: 'died', last };
    if (Date.now() >= deadline) return { ready: false, reason: 'timeout', last };
    await sleep(500);
  }
}

export async function waitForPort(port: number, alive: () => boolean, timeoutMs: number): Promise<WaitOutcome> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await isListening(port, 500)) return { ready: true };
    if (!alive()) return { ready: false, reason: 'died', last: 'port not open' };
    if (Date.now() >= deadline) return { ready: false, reason: 'timeout', last: 'port not open' };
    await sleep(250);
  }
}
