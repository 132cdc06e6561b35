// The verbs operators reach for around an offset change: stop, pause, resume, restart. Each
// sends one Kafka Connect request, then polls /status until the connector (and its tasks) are
// really in the state asked for: Connect answers 202/204 as soon as it has *accepted* the
// request, long before the tasks have stopped or started. Polling starts at 50 ms and backs
// off to 1 s; every poll is reported (elapsed time, attempt, what was seen) so a long wait
// never shows one frozen line.
import { redactAndClip } from '../../http/redact.js';
import { setTimeout as sleep } from 'node:timers/promises';
import type { HttpSender } from '../../http/client.js';
import { getConnectorInfo, type ConnectorInfo, type TaskState } from '../connect/index.js';
import type { OpsContext } from '../context.js';
import { OpsError } from '../errors.js';

export type LifecycleVerb = 'stop' | 'pause' | 'resume' | 'restart';

export interface LifecycleOptions {
  /** restart only: restart the tasks too (Connect's includeTasks). */
  includeTasks?: boolean;
  /** restart only: restart only the FAILED connector/tasks (Connect's onlyFailed). */
  onlyFailed?: boolean;
  /** How long to wait for the state (default 120 s). */
  timeoutMs?: number;
  /**
   * The connector always has tasks when it runs (its profile says so: a Debezium source): RUNNING
   * with no task is not running, and a FAILED task ends the wait at once with its reason.
   */
  needsTasks?: boolean;
  /** Called after every /status read that did not yet show the target state. */
  onWait?: (wait: LifecycleWait) => void;
}

export interface LifecycleWait {
  attempt: number;
  elapsedMs: number;
  /** `RUNNING, tasks 0:RUNNING 1:RESTARTING` */
  seen: string;
  target: string;
}

export interface LifecycleResult {
  connector: string;
  verb: LifecycleVerb;
  /** The state before the request. */
  before: string;
  /** The state reached. */
  state: string;
  tasks: TaskState[];
  attempts: number;
  elapsedMs: number;
  /** True when the connector already was in the target state and nothing was sent. */
  unchanged: boolean;
}

const TARGET: Record<LifecycleVerb, string> = { stop: 'STOPPED', pause: 'PAUSED', resume: 'RUNNING', restart: 'RUNNING' };

/** Needs no store: nothing is snapshotted or journaled, the offsets are not touched. */
export async function changeConnectorState(ctx: Pick<OpsContext, 'url' | 'http'>, connector: string, verb: LifecycleVerb, options: LifecycleOptions = {}): Promise<LifecycleResult> {
  const { http, url } = ctx;
  const started = performance.now();
  const before = await getConnectorInfo(http, url, connector); // E_CONNECTOR_NOT_FOUND with names
  const target = TARGET[verb];
  if (verb !== 'restart' && reached(before, verb)) {
    return { connector, verb, before: before.state, state: before.state, tasks: before.tasks, attempts: 0, elapsedMs: performance.now() - started, unchanged: true };
  }
  // A STOPPED connector whose stopped tasks Connect still lists for a moment (its status topic
  // lags behind): stopping it again sends nothing; only the tasks' going is waited for.
  const alreadyStopped = verb === 'stop' && before.state === 'STOPPED';
  if (!alreadyStopped) await send(http, url, connector, verb, options);
  const timeoutMs = options.timeoutMs ?? 120_000;
  const sentAt = performance.now();
  let delay = 50;
  for (let attempt = 1; ; attempt++) {
    await sleep(delay);
    delay = Math.min(delay * 2, 1000);
    const now = await getConnectorInfo(http, url, connector);
    const elapsedMs = performance.now() - started;
    // Right after a resume from STOPPED the connector is RUNNING before its tasks exist again;
    // a connector that really has no tasks is accepted once none appeared for 5 s.
    const tasksPending = verb === 'resume' && now.tasks.length === 0 && (options.needsTasks === true || (before.state === 'STOPPED' && performance.now() - sentAt < 5000));
    if (reached(now, verb, options) && !tasksPending) {
      return { connector, verb, before: before.state, state: now.state, tasks: now.tasks, attempts: attempt, elapsedMs, unchanged: alreadyStopped };
    }
    // A restart that ends in FAILED again will not get better by waiting; give it a moment to
    // leave the old FAILED state first.
    const failed = failure(now);
    if ((verb === 'restart' || (verb === 'resume' && options.needsTasks)) && failed && performance.now() - sentAt > 3000) {
      if (verb === 'resume') throw new OpsError('E_CONNECT_API', `connector ${connector} did not start: ${failed}`);
      throw new OpsError('E_CONNECT_API', `connector ${connector} failed again after the restart: ${failed}`);
    }
    if (performance.now() - sentAt > timeoutMs) {
      throw new OpsError('E_CONNECT_API', `connector ${connector} did not reach ${target} within ${Math.round(timeoutMs / 1000)} s (last seen: ${describeState(now)})${failed ? `; ${failed}` : ''}`);
    }
    options.onWait?.({ attempt, elapsedMs, seen: describeState(now), target });
  }
}

async function send(http: HttpSender, url: string, connector: string, verb: LifecycleVerb, options: LifecycleOptions): Promise<void> {
  const base = `${url.replace(/\/+$/, '')}/connectors/${encodeURIComponent(connector)}`;
  const request = verb === 'restart'
    ? { method: 'POST', url: `${base}/restart?includeTasks=${options.includeTasks === true}&onlyFailed=${options.onlyFailed === true}` }
    : { method: 'PUT', url: `${base}/${verb}` };
  // 409 "stale configuration" and "rebalance expected" come and go while the cluster
  // rebalances; the four requests are idempotent, so they are sent again for up to 15 s.
  const deadline = performance.now() + 15_000;
  let res = await http.send({ ...request, headers: { accept: 'application/json' } });
  for (let pause = 100; isRebalancing(res.status, res.body) && performance.now() < deadline; pause = Math.min(pause * 2, 1000)) {
    await sleep(pause);
    res = await http.send({ ...request, headers: { accept: 'application/json' } });
  }
  if (res.status >= 200 && res.status < 300) return;
  const text = res.body.toString('utf8');
  let message = redactAndClip(text.trim(), 200) || '(no body)';
  try {
    const m = (JSON.parse(text) as { message?: unknown }).message;
    if (typeof m === 'string') message = m;
  } catch {
    // not JSON: keep the text
  }
  const hint = res.status === 404 && verb === 'stop' ? ' (PUT /stop needs Kafka Connect 3.5 or later)' : '';
  throw new OpsError('E_CONNECT_API', `${request.method} ${new URL(request.url).pathname}: Kafka Connect answered ${res.status}: ${message}${hint}`, { status: res.status });
}

function isRebalancing(status: number, body: Buffer): boolean {
  return status === 409 || (status === 500 && /rebalanc/i.test(body.toString('utf8')));
}

function reached(info: ConnectorInfo, verb: LifecycleVerb, options: LifecycleOptions = {}): boolean {
  const target = TARGET[verb];
  if (info.state !== target) return false;
  // A STOPPED connector has no tasks; PAUSED and RUNNING are real only once every task is.
  if (verb === 'stop') return info.tasks.length === 0;
  if (verb === 'restart' && options.includeTasks !== true) return true;
  return info.tasks.every((t) => t.state === target);
}

function failure(info: ConnectorInfo): string | undefined {
  const first = (trace: string | undefined) => (trace ? `: ${trace.split('\n')[0]}` : '');
  if (info.state === 'FAILED') return `the connector is FAILED${first(info.tasks.find((t) => t.trace)?.trace)}`;
  const task = info.tasks.find((t) => t.state === 'FAILED');
  return task ? `task ${task.id} is FAILED${first(task.trace)}` : undefined;
}

export function describeState(info: Pick<ConnectorInfo, 'state' | 'tasks'>): string {
  return info.tasks.length === 0 ? info.state : `${info.state}, tasks ${info.tasks.map((t) => `${t.id}:${t.state}`).join(' ')}`;
}
