// Read-only Kafka Connect calls used by pre-flight and the read-only commands (connectors,
// offsets get). Changing calls are NOT here: the workflows in workflows/ own that sequence.
import { redactAndClip } from '../../http/redact.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { HttpTransportError, type HttpSender } from '../../http/client.js';
import { OpsError } from '../errors.js';
import type { ConnectorOffsets, ConnectorType } from '../offsets/index.js';

export interface TaskState {
  id: number;
  state: string;
  workerId?: string;
  trace?: string;
}

export interface ConnectorInfo {
  name: string;
  type: ConnectorType;
  /** Connector state from /status: RUNNING, PAUSED, STOPPED, FAILED, UNASSIGNED, RESTARTING. */
  state: string;
  tasks: TaskState[];
  config: Record<string, string>;
}

export interface ConnectorSummary {
  name: string;
  /** `source`, `sink`, or `unknown` when the worker cannot load the plugin. */
  type: string;
  state: string;
  workerId?: string;
  trace?: string;
  tasks: TaskState[];
}

/**
 * The connector's type, state, tasks and config (GET /connectors/{c} and /status).
 * Throws `E_CONNECTOR_NOT_FOUND` with a few existing names when it does not exist.
 */
export async function getConnectorInfo(http: HttpSender, url: string, name: string): Promise<ConnectorInfo> {
  return readDuringRebalance(() => readConnectorInfo(http, url, name));
}

async function readConnectorInfo(http: HttpSender, url: string, name: string): Promise<ConnectorInfo> {
  const path = connectorPath(name);
  const [info, status] = await Promise.all([getJson(http, url, path), getJson(http, url, `${path}/status`)]);
  if (info.status === 404) throw await notFound(http, url, name);
  const body = expectOk(info, 'GET', path) as { type?: string; config?: Record<string, string> };
  if (body.type !== 'source' && body.type !== 'sink') {
    throw new OpsError('E_PREFLIGHT', `connector ${name}: Kafka Connect reports its type as ${JSON.stringify(body.type)}, not source or sink; is the connector plugin installed on every worker?`);
  }
  // A connector created a moment ago may have no status yet: it is not running.
  if (status.status === 404) return { name, type: body.type, state: 'UNASSIGNED', tasks: [], config: body.config ?? {} };
  const s = expectOk(status, 'GET', `${path}/status`) as RawStatus;
  return { name, type: body.type, state: s.connector?.state ?? 'UNASSIGNED', tasks: toTasks(s.tasks), config: body.config ?? {} };
}

/**
 * States Connect shows for a moment while a connector is (re)assigned in a rebalance or restarted.
 * A plan that recorded one of them as "the state before" would leave a running connector STOPPED
 * afterwards (only RUNNING and PAUSED are restored), so plans wait for a settled state first.
 */
const PASSING_STATES = new Set(['UNASSIGNED', 'RESTARTING']);

/**
 * getConnectorInfo, re-read with back-off (100 ms doubling to 1 s) while the connector's state is
 * UNASSIGNED or RESTARTING, for at most `settleMs`; then whatever Connect says is returned (a
 * connector that stays unassigned is planned as such, and the run says where it leaves it).
 */
export async function getSettledConnectorInfo(http: HttpSender, url: string, name: string, settleMs = 10_000): Promise<ConnectorInfo> {
  const deadline = Date.now() + settleMs;
  let info = await getConnectorInfo(http, url, name);
  for (let pause = 100; PASSING_STATES.has(info.state) && Date.now() + pause <= deadline; pause = Math.min(pause * 2, 1_000)) {
    await sleep(pause);
    info = await getConnectorInfo(http, url, name);
  }
  return info;
}

/** Exactly what GET /connectors/{c}/offsets returns: `{"offsets": [...]}`. */
export async function getOffsets(http: HttpSender, url: string, name: string): Promise<ConnectorOffsets> {
  return readDuringRebalance(() => readOffsets(http, url, name));
}

async function readOffsets(http: HttpSender, url: string, name: string): Promise<ConnectorOffsets> {
  const path = `${connectorPath(name)}/offsets`;
  const res = await getJson(http, url, path);
  if (res.status === 404) throw await notFound(http, url, name);
  const body = expectOk(res, 'GET', path) as Partial<ConnectorOffsets>;
  if (!Array.isArray(body.offsets)) throw new OpsError('E_CONNECT_API', `GET ${path}: the answer has no "offsets" array; is ${url} a Kafka Connect 3.5+ REST endpoint?`);
  return body as ConnectorOffsets;
}

export async function listConnectorNames(http: HttpSender, url: string): Promise<string[]> {
  const body = expectOk(await getJson(http, url, '/connectors'), 'GET', '/connectors');
  return Array.isArray(body) ? (body as string[]).slice().sort() : [];
}

/** Every connector with its type, state and tasks, in one call (`?expand=status&expand=info`), sorted by name. */
export async function listConnectors(http: HttpSender, url: string): Promise<ConnectorSummary[]> {
  return readDuringRebalance(() => readConnectorList(http, url));
}

async function readConnectorList(http: HttpSender, url: string): Promise<ConnectorSummary[]> {
  const path = '/connectors?expand=status&expand=info';
  const body = expectOk(await getJson(http, url, path), 'GET', path) as Record<string, { status?: RawStatus; info?: { type?: string } }>;
  return Object.keys(body)
    .sort()
    .map((name) => {
      const { status, info } = body[name] ?? {};
      const summary: ConnectorSummary = { name, type: info?.type ?? status?.type ?? 'unknown', state: status?.connector?.state ?? 'UNASSIGNED', tasks: toTasks(status?.tasks) };
      if (status?.connector?.worker_id) summary.workerId = status.connector.worker_id;
      if (status?.connector?.trace) summary.trace = status.connector.trace;
      return summary;
    });
}

interface RawStatus {
  type?: string;
  connector?: { state?: string; worker_id?: string; trace?: string };
  tasks?: Array<{ id: number; state: string; worker_id?: string; trace?: string }>;
}

interface JsonResponse {
  status: number;
  body: unknown;
  text: string;
}

function toTasks(raw: RawStatus['tasks']): TaskState[] {
  return (raw ?? []).map((t) => {
    const task: TaskState = { id: t.id, state: t.state };
    if (t.worker_id) task.workerId = t.worker_id;
    if (t.trace) task.trace = t.trace;
    return task;
  });
}

function connectorPath(name: string): string {
  // Such names cannot be addressed: Connect 4.x (Jetty 12) answers 400 "Ambiguous URI path
  // separator" to %2F, and URL normalisation turns /connectors/.. into / (the root resource).
  if (name.includes('/') || name === '.' || name === '..' || name === '') {
    throw new OpsError('E_USAGE', `connector name ${JSON.stringify(name)} cannot be addressed through the Kafka Connect REST API (a name with "/", or "." / ".."); check the name with \`offsetctl connectors\``, { field: 'connector' });
  }
  return `/connectors/${encodeURIComponent(name)}`;
}

async function getJson(http: HttpSender, url: string, path: string): Promise<JsonResponse> {
  const target = url.replace(/\/+$/, '') + path;
  let res;
  try {
    res = await http.send({ method: 'GET', url: target, headers: { accept: 'application/json' } });
  } catch (err) {
    // Every call here is a read before (or instead of) any change: an unreachable cluster is a
    // refusal with nothing changed, whatever the transport said.
    if (!(err instanceof HttpTransportError)) throw err;
    throw new OpsError('E_UNREACHABLE', `${err.message}; nothing was changed`, { cause: err, ...(err.hint ? { hint: err.hint } : {}) });
  }
  const text = res.body.toString('utf8');
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, body, text };
}

function expectOk(res: JsonResponse, method: string, path: string): unknown {
  if (res.status >= 200 && res.status < 300) {
    if (res.body === undefined) throw new OpsError('E_CONNECT_API', `${method} ${path}: answered ${res.status} without a JSON body; is the URL a Kafka Connect REST endpoint?`, { status: res.status });
    return res.body;
  }
  const message = (res.body as { message?: unknown } | undefined)?.message;
  // Masked before it is cut: a cut through an echoed secret would leave its start unmasked.
  const said = typeof message === 'string' ? message : redactAndClip(res.text.trim(), 200) || '(no body)';
  // 409, or the 500 "a rebalance is expected": Connect refuses for a moment while the group
  // rebalances (Connect's own words are the only signal it gives for the 500).
  const retryable = res.status === 409 || (res.status === 500 && /rebalanc/i.test(said));
  throw new OpsError('E_CONNECT_API', `${method} ${path}: Kafka Connect answered ${res.status}: ${said}${STATUS_TEXT[res.status] ?? ''}`, { status: res.status, retryable, ...(res.status === 401 ? { hint: 'credentials' as const } : {}) });
}

const STATUS_TEXT: Record<number, string> = {
  401: ' (the credentials were refused)',
  403: ' (the credentials are valid but not allowed to do this)',
  407: ' (a proxy wants credentials)',
};

async function notFound(http: HttpSender, url: string, name: string): Promise<OpsError> {
  let names: string[] = [];
  try {
    names = await listConnectorNames(http, url);
  } catch {
    // The not-found error matters more than the list.
  }
  const some = names.slice(0, 5).join(', ');
  const others = names.length > 5 ? ` and ${names.length - 5} more` : '';
  const known = names.length === 0 ? 'the cluster has no connectors' : `existing connectors: ${some}${others}`;
  return new OpsError('E_CONNECTOR_NOT_FOUND', `connector ${JSON.stringify(name)} not found at ${url} (${known}); check the name with \`offsetctl connectors\``, { field: 'connector', status: 404 });
}

/**
 * Reads retried for up to ~15 s while the cluster rebalances (409, or the 500 "a rebalance is
 * expected"): right after a connector is created or deleted elsewhere, Connect briefly refuses
 * requests that are perfectly fine a moment later. Every reader of this module gets it; reads only.
 */
async function readDuringRebalance<T>(read: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      return await read();
    } catch (err) {
      if (!(err instanceof OpsError && err.retryable) || Date.now() > deadline) throw err;
      await sleep(500);
    }
  }
}

/**
 * The topics a connector reports having used (GET /connectors/{c}/topics, KIP-558): what a source
 * writes to. Undefined when the worker does not track them (topic.tracking.enable=false answers 4xx).
 */
export async function getConnectorTopics(http: HttpSender, url: string, name: string): Promise<string[] | undefined> {
  const path = `${connectorPath(name)}/topics`;
  const res = await getJson(http, url, path);
  if (res.status >= 400) return undefined;
  const body = expectOk(res, 'GET', path) as Record<string, { topics?: string[] }>;
  return body[name]?.topics ?? [];
}
