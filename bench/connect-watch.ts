// Kafka Connect helpers for the rewind figure: a throw-away FileStreamSource connector, and a
// watcher that polls /status every 25 ms on its own, so the bench knows when Connect reached a
// state independently of how quickly offsetctl noticed.
import { setTimeout as sleep } from 'node:timers/promises';

export interface ConnectorStatus {
  connector: { state: string };
  tasks: Array<{ id: number; state: string }>;
}

export function isStopped(s: ConnectorStatus): boolean {
  return s.connector.state === 'STOPPED' && s.tasks.length === 0;
}

export function isRunning(s: ConnectorStatus): boolean {
  return s.connector.state === 'RUNNING' && s.tasks.length > 0 && s.tasks.every((t) => t.state === 'RUNNING');
}

async function call(method: string, url: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const res = await fetch(url, { method, ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }) });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = text;
  }
  return { status: res.status, json };
}

export async function getStatus(worker: string, name: string): Promise<ConnectorStatus | undefined> {
  const r = await call('GET', `${worker}/connectors/${encodeURIComponent(name)}/status`);
  return r.status === 200 ? (r.json as ConnectorStatus) : undefined;
}

/** Creates a FileStreamSource connector and waits until it runs and has committed an offset. */
export async function createFileSource(worker: string, name: string, file: string, topic: string): Promise<void> {
  const config = { 'connector.class': 'org.apache.kafka.connect.file.FileStreamSourceConnector', file, topic, 'tasks.max': '1' };
  const r = await call('POST', `${worker}/connectors`, { name, config });
  if (r.status !== 201) throw new Error(`creating connector ${name}: HTTP ${r.status} ${JSON.stringify(r.json)}`);
  await waitFor(
    async () => {
      const s = await getStatus(worker, name);
      return s !== undefined && isRunning(s);
    },
    60_000,
    `connector ${name} RUNNING`,
  );
  await waitFor(
    async () => {
      const o = await call('GET', `${worker}/connectors/${encodeURIComponent(name)}/offsets`);
      return o.status === 200 && ((o.json as { offsets?: unknown[] }).offsets?.length ?? 0) > 0;
    },
    30_000,
    `connector ${name} committed offsets`,
  );
}

export async function deleteConnector(worker: string, name: string): Promise<void> {
  await call('DELETE', `${worker}/connectors/${encodeURIComponent(name)}`).catch(() => undefined);
}

export async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check().catch(() => false)) return;
    await sleep(100);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

export interface StatusSample {
  /** Epoch ms when the response arrived. */
  at: number;
  stopped: boolean;
  running: boolean;
}

/** Polls /status every `intervalMs` until stopped; returns every sample taken. */
export function watchStatus(worker: string, name: string, intervalMs = 25): { stop: () => Promise<StatusSample[]> } {
  const samples: StatusSample[] = [];
  let active = true;
  const loop = (async () => {
    while (active) {
      const s = await getStatus(worker, name).catch(() => undefined);
      if (s) samples.push({ at: Date.now(), stopped: isStopped(s), running: isRunning(s) });
      await sleep(intervalMs);
    }
  })();
  return {
    stop: async () => {
      active = false;
      await loop;
      return samples;
    },
  };
}
