// Reading an Iceberg table through the REST catalog protocol (Apache Iceberg's
// open-api/rest-catalog-open-api.yaml: GET /v1/config, GET .../namespaces/{ns}/tables/{table}).
// Planning only reads; the change (set a branch back) is the workflow
// workflows/set-iceberg-table-snapshot.arazzo.yaml. Snapshot ids are 64-bit and exceed 2^53, so
// they are kept as decimal strings: JSON.parse would round them and a requirement on a rounded id
// fails (409). Requests go through a client of their own: the Connect workers' credentials are
// never sent to the catalog.
import { HttpClient, type HttpSender } from '../../http/client.js';
import { OpsError } from '../errors.js';

export interface IcebergSnapshot {
  id: string;
  parentId?: string;
  timestampMs: number;
  summary: Record<string, string>;
}

export interface IcebergTable {
  /** As the connector names it (`db.events`). */
  name: string;
  namespace: string[];
  table: string;
  /** The branch's head (`main`, or iceberg.tables.default-commit-branch); undefined: the branch has no snapshot. */
  head?: string;
  snapshots: Map<string, IcebergSnapshot>;
}

/** Where the catalog's table routes start: `<uri>/v1` plus the catalog's `prefix` override, if any. */
export interface CatalogBase {
  uri: string;
  base: string;
}

/** Snapshot ids quoted before parsing, so none is rounded. */
export function parseExact(text: string): unknown {
  return JSON.parse(text.replace(/"((?:current-|parent-)?snapshot-id)"\s*:\s*(-?\d+)/g, '"$1":"$2"'));
}

let plainClient: HttpSender | undefined;
function client(): HttpSender {
  plainClient ??= new HttpClient({ timeoutMs: 30_000 });
  return plainClient;
}

async function getJson(url: string, what: string): Promise<{ status: number; body: unknown }> {
  let res;
  try {
    res = await client().send({ method: 'GET', url, headers: { accept: 'application/json' } });
  } catch (err) {
    const why = (err as Error).message;
    throw new OpsError('E_PREFLIGHT', `the Iceberg REST catalog did not answer ${what} (${url}): ${why}; nothing was changed`,
      { field: 'iceberg.catalog.uri' });
  }
  const text = res.body.toString('utf8');
  let body: unknown;
  try {
    body = parseExact(text);
  } catch {
    body = text;
  }
  return { status: res.status, body };
}

export async function catalogBase(uri: string, warehouse: string | undefined): Promise<CatalogBase> {
  const root = uri.replace(/\/+$/, '');
  const { status, body } = await getJson(`${root}/v1/config${warehouse ? `?warehouse=${encodeURIComponent(warehouse)}` : ''}`, 'GET /v1/config');
  if (status !== 200) {
    throw new OpsError('E_PREFLIGHT', `the Iceberg REST catalog at ${root} answered ${status} to GET /v1/config (is iceberg.catalog.uri a REST catalog, ` +
      'and does it need credentials offsetctl does not have?); nothing was changed', { field: 'iceberg.catalog.uri' });
  }
  const overrides = (body as { overrides?: Record<string, string> }).overrides ?? {};
  const defaults = (body as { defaults?: Record<string, string> }).defaults ?? {};
  const prefix = overrides.prefix ?? defaults.prefix;
  return { uri: root, base: `${root}/v1${prefix ? `/${prefix.replace(/^\/+|\/+$/g, '')}` : ''}` };
}

/** `a.b.events` → namespace [a, b], table events (the sink's own split: the last dot). */
export function splitTable(name: string): { namespace: string[]; table: string } {
  const parts = name.split('.');
  return { namespace: parts.slice(0, -1), table: parts[parts.length - 1]! };
}

/** The namespace as one path segment: parts joined by the unit separator 0x1F (the spec's default). */
export function namespacePath(namespace: string[]): string {
  return namespace.join('\u001f');
}

interface TableMetadata {
  snapshots?: Array<Record<string, unknown>>;
  refs?: Record<string, { 'snapshot-id'?: string }>;
  'current-snapshot-id'?: string;
}

export async function loadTable(base: CatalogBase, name: string, branch: string): Promise<IcebergTable> {
  const { namespace, table } = splitTable(name);
  const url = `${base.base}/namespaces/${encodeURIComponent(namespacePath(namespace))}/tables/${encodeURIComponent(table)}`;
  const { status, body } = await getJson(url, `loadTable ${name}`);
  const field = { field: 'iceberg.tables' };
  if (status === 404) {
    throw new OpsError('E_PREFLIGHT', `the Iceberg table ${name} (iceberg.tables) does not exist in the catalog at ${base.uri}; nothing was changed`, field);
  }
  if (status !== 200) {
    const said = JSON.stringify(body).slice(0, 300);
    throw new OpsError('E_PREFLIGHT', `the Iceberg REST catalog answered ${status} to loading ${name}: ${said}; nothing was changed`, field);
  }
  const metadata = (body as { metadata: TableMetadata }).metadata;
  const snapshots = new Map<string, IcebergSnapshot>();
  for (const s of metadata.snapshots ?? []) {
    const id = String(s['snapshot-id']);
    snapshots.set(id, {
      id, ...(s['parent-snapshot-id'] !== undefined && s['parent-snapshot-id'] !== null ? { parentId: String(s['parent-snapshot-id']) } : {}),
      timestampMs: Number(s['timestamp-ms']), summary: (s.summary ?? {}) as Record<string, string>,
    });
  }
  const ref = metadata.refs?.[branch]?.['snapshot-id'] ?? (branch === 'main' ? metadata['current-snapshot-id'] : undefined);
  const head = ref !== undefined && ref !== null && String(ref) !== '-1' ? String(ref) : undefined;
  return { name, namespace, table, ...(head ? { head } : {}), snapshots };
}

/** The branch's snapshots, newest first (its head, then parents). */
export function ancestry(t: IcebergTable): IcebergSnapshot[] {
  const out: IcebergSnapshot[] = [];
  for (let id = t.head; id !== undefined;) {
    const s = t.snapshots.get(id);
    if (!s || out.length > 100_000) break;
    out.push(s);
    id = s.parentId;
  }
  return out;
}
