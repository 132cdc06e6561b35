// The reads a move, copy, export and import need beyond connect-client's: the installed plugins,
// a plugin's configuration definition, a validation of a configuration (PUT, but it creates
// nothing), whether a name is taken. Every one happens before any change, so an unreachable
// cluster is a refusal with nothing changed.
import { HttpTransportError, type HttpSender } from '../../http/client.js';
import { OpsError } from '../errors.js';
import type { ConfigKeyInfo } from './config-secrets.js';
import type { PluginInfo } from './plugins.js';

async function call(http: HttpSender, url: string, method: 'GET' | 'PUT', path: string, body?: unknown): Promise<{ status: number; json: unknown; text: string }> {
  let res;
  try {
    res = await http.send({
      method, url: `${url.replace(/\/+$/, '')}${path}`,
      headers: body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (err) {
    if (!(err instanceof HttpTransportError)) throw err;
    throw new OpsError('E_UNREACHABLE', `${err.message}; nothing was changed`, { cause: err, ...(err.hint ? { hint: err.hint } : {}) });
  }
  const text = res.body.toString('utf8');
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text };
}

function failed(method: string, path: string, res: { status: number; json: unknown; text: string }): OpsError {
  const message = (res.json as { message?: unknown } | undefined)?.message;
  const said = typeof message === 'string' ? message : res.text.slice(0, 200).trim() || '(no body)';
  return new OpsError('E_CONNECT_API', `${method} ${path}: Kafka Connect answered ${res.status}: ${said}`, { status: res.status, retryable: res.status === 409 });
}

/** GET /connector-plugins: the connector plugins every worker of the cluster has. */
export async function listPlugins(http: HttpSender, url: string): Promise<PluginInfo[]> {
  const res = await call(http, url, 'GET', '/connector-plugins');
  if (res.status !== 200 || !Array.isArray(res.json)) throw failed('GET', '/connector-plugins', res);
  return res.json as PluginInfo[];
}

/** GET /connector-plugins/{class}/config: the plugin's configuration keys and their types. */
export async function pluginConfigDefinition(http: HttpSender, url: string, pluginClass: string): Promise<ConfigKeyInfo[]> {
  const path = `/connector-plugins/${encodeURIComponent(pluginClass)}/config`;
  const res = await call(http, url, 'GET', path);
  if (res.status !== 200 || !Array.isArray(res.json)) throw failed('GET', path, res);
  return res.json as ConfigKeyInfo[];
}

/** PUT /connector-plugins/{class}/config/validate: Connect's own validation; nothing is created. */
export async function validateConfig(http: HttpSender, url: string, pluginClass: string, config: Record<string, string>): Promise<unknown> {
  const path = `/connector-plugins/${encodeURIComponent(pluginClass)}/config/validate`;
  const res = await call(http, url, 'PUT', path, config);
  if (res.status !== 200) throw failed('PUT', path, res);
  return res.json;
}

/** Does a connector of that name exist (GET /connectors/{c}: 200 or 404)? */
export async function connectorExists(http: HttpSender, url: string, name: string): Promise<boolean> {
  const path = `/connectors/${encodeURIComponent(name)}`;
  for (let attempt = 0; ; attempt++) {
    const res = await call(http, url, 'GET', path);
    if (res.status === 200) return true;
    if (res.status === 404) return false;
    // A rebalance answers 409 for a moment.
    if (res.status !== 409 || attempt >= 20) throw failed('GET', path, res);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** GET /connectors/{c}/config, the configuration as the cluster holds it (secrets included). */
export async function readConfig(http: HttpSender, url: string, name: string): Promise<Record<string, string> | undefined> {
  const path = `/connectors/${encodeURIComponent(name)}/config`;
  const res = await call(http, url, 'GET', path);
  if (res.status === 404) return undefined;
  if (res.status !== 200 || typeof res.json !== 'object' || res.json === null) throw failed('GET', path, res);
  return res.json as Record<string, string>;
}

/** The connector's state (GET /connectors/{c}/status), or undefined when it does not exist there. */
export async function connectorState(http: HttpSender, url: string, name: string): Promise<string | undefined> {
  const path = `/connectors/${encodeURIComponent(name)}/status`;
  for (let attempt = 0; ; attempt++) {
    const res = await call(http, url, 'GET', path);
    if (res.status === 404) return undefined;
    const state = (res.json as { connector?: { state?: unknown } } | undefined)?.connector?.state;
    if (res.status === 200 && typeof state === 'string') return state;
    if (res.status !== 409 || attempt >= 20) throw failed('GET', path, res);
    await new Promise((r) => setTimeout(r, 500));
  }
}
