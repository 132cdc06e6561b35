// One read of the worker's GET / per plan: the cluster identity and the version check share it.
// The loopback server answers only with recorded Kafka Connect answers (its root, an empty
// connector list, 404 for a connector that does not exist) and counts what it was asked.
// Real parts: a loopback HTTP server, a SQLite store file.
import * as assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { HttpClient } from '../../http/client.js';
import { openStore } from '../../store/index.js';
import { clusterIdentity } from './cluster-identity.js';
import { planRollback } from '../plan/plan.js';
import { WorkerRoot } from './worker-root.js';
import { requireSupportedWorker } from './worker-version.js';

const KAFKA_CLUSTER_ID = 'TKTISmUx3wfkGDeyVkrAGQ';
const asked: string[] = [];
let server: Server;
let url: string;
let http: HttpClient;

before(async () => {
  server = createServer((req, res) => {
    asked.push(`${req.method} ${req.url}`);
    res.setHeader('content-type', 'application/json');
    if (req.url === '/') res.end(JSON.stringify({ version: '4.4.0', commit: '0123456789abcdef', kafka_cluster_id: KAFKA_CLUSTER_ID }));
    else if (req.url === '/connectors') res.end('[]');
    else res.writeHead(404).end(JSON.stringify({ error_code: 404, message: 'Connector orders not found' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  http = new HttpClient();
});
after(async () => {
  await http.close();
  await new Promise((resolve) => server.close(resolve));
});

const rootReads = (): number => asked.filter((r) => r === 'GET /').length;

test('the identity and the version check read GET / once through one WorkerRoot (twice through two)', async () => {
  asked.length = 0;
  const root = new WorkerRoot(http, url);
  assert.equal((await requireSupportedWorker(root))?.version, '4.4.0');
  assert.equal((await clusterIdentity(root)).key, `kafka:${KAFKA_CLUSTER_ID}`);
  assert.equal(rootReads(), 1);
  await requireSupportedWorker(new WorkerRoot(http, url));
  await clusterIdentity(new WorkerRoot(http, url));
  assert.equal(rootReads(), 3, 'each new WorkerRoot reads again (a plan makes its own)');
});

test('a rollback plan reads GET / once for the snapshot lookup and the version check', async () => {
  const store = openStore(mkdtempSync(join(tmpdir(), 'offsetctl-worker-root-')));
  try {
    await store.saveSnapshot({ clusterUrl: url, clusterKey: `kafka:${KAFKA_CLUSTER_ID}`, connector: 'orders', connectorType: 'source', stateBefore: 'RUNNING', offsets: [{ partition: { filename: '/data/orders.txt' }, offset: { position: 42 } }] });
    asked.length = 0;
    // The connector is gone: the plan gets as far as reading it, after both checks.
    await assert.rejects(planRollback({ url, http, store }, { connector: 'orders' }), (e: Error & { code?: string }) => e.code === 'E_CONNECTOR_NOT_FOUND');
    assert.equal(rootReads(), 1, asked.join(', '));
    assert.ok(asked.includes('GET /connectors/orders'), `the plan read the connector after the checks: ${asked.join(', ')}`);
  } finally {
    await store.close();
  }
});
