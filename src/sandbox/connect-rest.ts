// A small Kafka Connect REST client for the demo and the integration tests: the calls they need,
// plus polling for connector states. Operators' offset changes go through the workflows instead.
import { setTimeout as sleep } from 'node:timers/promises';

export type ConnectorState = 'UNASSIGNED' | 'RUNNING' | 'PAUSED' | 'FAILED' | 'RESTARTING' | 'STOPPED';

export interface ConnectorStatus {
  name: string;
  connector: { state: ConnectorState; worker_id: string; trace?: string };
  tasks: Array<{ id: number; state: ConnectorState; worker_id: string; trace?: string }>;
  type: 'source' | 'sink';
}

export interface ConnectorOffsets {
  offsets: Array<{ partition: Record<string, unknown>; offset: Record<string, unknown> | null }>;
}

export interface ConnectResponse {
  status: number;
  body: unknown;
}

export class ConnectRestError extends Error {
  readonly status: number;
  readonly body: unknown;

  constructor(method: string, url: string, response: ConnectResponse) {
    super(`${method} ${url} answered ${response.status}: ${JSON.stringify(response.body)}`);
    this.name = 'ConnectRestError';
    this.status = response.status;
    this.body = response.body;
  }
}

/** Connect's 409 answers that mean "try again in a moment" (RebalanceNeededException, stale config). */
const TRANSIENT_CONFLICT = /rebalance|stale configuration|momentarily/i;

export class ConnectRest {
  readonly baseUrl: string;

  constructor(baseUrl: string) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
  }

  /**
   * Any call; never throws for an HTTP status. A 409 that Connect means as "not now" (a rebalance
   * in progress, or "stale configuration" while another client's connector is being created) is
   * asked again for up to 60 s, as a person would; a 409 that means a conflict (a name taken) is
   * returned at once.
   */
  async request(method: string, path: string, body?: unknown): Promise<ConnectResponse> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const response = await this.#once(method, path, body);
      if (response.status !== 409 || !TRANSIENT_CONFLICT.test(JSON.stringify(response.body ?? '')) || Date.now() > deadline) return response;
      await sleep(500);
    }
  }

  async #once(method: string, path: string, body?: unknown): Promise<ConnectResponse> {
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: body === undefined ? { accept: 'application/json' } : { 'content-type': 'application/json', accept: 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(120_000),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      // not JSON (a proxy's HTML page, say): keep the text for the error message
    }
    return { status: res.status, body: parsed };
  }

  /** A call that must answer one of `expected`; returns the parsed body. */
  async expect<T>(method: string, path: string, expected: number[], body?: unknown): Promise<T> {
    const response = await this.request(method, path, body);
    if (!expected.includes(response.status)) throw new ConnectRestError(method, `${this.baseUrl}${path}`, response);
    return response.body as T;
  }

  createConnector(name: string, config: Record<string, string>, initialState?: 'RUNNING' | 'PAUSED' | 'STOPPED'): Promise<unknown> {
    return this.expect('POST', '/connectors', [201], { name, config, ...(initialState ? { initial_state: initialState } : {}) });
  }

  listConnectors(): Promise<string[]> {
    return this.expect('GET', '/connectors', [200]);
  }

  async deleteConnector(name: string): Promise<void> {
    await this.expect('DELETE', `/connectors/${encodeURIComponent(name)}`, [204, 404]);
  }

  status(name: string): Promise<ConnectorStatus> {
    return this.expect('GET', `/connectors/${encodeURIComponent(name)}/status`, [200]);
  }

  offsets(name: string): Promise<ConnectorOffsets> {
    return this.expect('GET', `/connectors/${encodeURIComponent(name)}/offsets`, [200]);
  }

  async stop(name: string): Promise<void> {
    await this.expect('PUT', `/connectors/${encodeURIComponent(name)}/stop`, [204]);
  }

  async resume(name: string): Promise<void> {
    await this.expect('PUT', `/connectors/${encodeURIComponent(name)}/resume`, [202]);
  }

  /** Polls /status until `done` holds; a FAILED connector or task ends the wait with its trace. */
  async waitForStatus(name: string, what: string, done: (s: ConnectorStatus) => boolean, timeoutMs = 60_000): Promise<ConnectorStatus> {
    const deadline = Date.now() + timeoutMs;
    let last: ConnectorStatus | string = 'no answer yet';
    for (;;) {
      const response = await this.request('GET', `/connectors/${encodeURIComponent(name)}/status`);
      if (response.status === 200) {
        const status = response.body as ConnectorStatus;
        if (done(status)) return status;
        const failed = [status.connector, ...status.tasks].find((s) => s.state === 'FAILED');
        if (failed) throw new Error(`connector ${name} FAILED while waiting until ${what}: ${failed.trace ?? '(no trace)'}`);
        last = status;
      } else last = `${response.status} ${JSON.stringify(response.body)}`;
      if (Date.now() >= deadline) throw new Error(`connector ${name}: timed out after ${timeoutMs} ms waiting until ${what}; last status ${JSON.stringify(last)}`);
      await sleep(250);
    }
  }

  /** Connector RUNNING with `tasks` tasks, all RUNNING. */
  waitForRunning(name: string, tasks = 1, timeoutMs?: number): Promise<ConnectorStatus> {
    return this.waitForStatus(name, `it runs with ${tasks} running task(s)`, (s) =>
      s.connector.state === 'RUNNING' && s.tasks.length === tasks && s.tasks.every((t) => t.state === 'RUNNING'), timeoutMs);
  }

  /** Connector STOPPED and no tasks left: only then do offset changes succeed. */
  waitForStopped(name: string, timeoutMs?: number): Promise<ConnectorStatus> {
    return this.waitForStatus(name, 'it is STOPPED with no tasks', (s) => s.connector.state === 'STOPPED' && s.tasks.length === 0, timeoutMs);
  }
}
