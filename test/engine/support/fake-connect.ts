// A stand-in for the few Kafka Connect endpoints the seed workflows call, enough to run them
// end to end through the CLI on loopback (real Connect is exercised by test/integration/).
import type { RecordedRequest, Reply, TestServer } from './server.js';
import { startServer } from './server.js';

interface Connector {
  state: 'RUNNING' | 'PAUSED' | 'STOPPED';
  offsets: unknown[];
}

export async function startFakeConnect(names: string[]): Promise<TestServer & { connectors: Map<string, Connector> }> {
  const connectors = new Map<string, Connector>(names.map((n) => [n, { state: 'RUNNING', offsets: [{ partition: { kafka_topic: 't', kafka_partition: 0 }, offset: { kafka_offset: 42 } }] }]));
  const handle = (req: RecordedRequest): Reply => {
    const [, , rawName, action] = req.path.split('/');
    const c = connectors.get(decodeURIComponent(rawName ?? ''));
    if (!c) return { status: 404, body: { error_code: 404, message: `Connector ${rawName} not found` } };
    switch (`${req.method} ${action}`) {
      case 'PUT stop':
        c.state = 'STOPPED';
        return { status: 204 };
      case 'PUT resume':
        c.state = 'RUNNING';
        return { status: 202 };
      case 'GET status':
        return { body: { name: rawName, connector: { state: c.state, worker_id: '127.0.0.1:8083' }, tasks: [{ id: 0, state: c.state }], type: 'sink' } };
      case 'GET offsets':
        return { body: { offsets: c.offsets } };
      case 'PATCH offsets':
      case 'DELETE offsets':
        if (c.state !== 'STOPPED') return { status: 400, body: { error_code: 400, message: 'Connectors must be in the STOPPED state' } };
        c.offsets = req.method === 'DELETE' ? [] : ((JSON.parse(req.body) as { offsets: unknown[] }).offsets);
        return { body: { message: 'The offsets for this connector have been altered successfully' } };
      default:
        return { status: 405, body: { error_code: 405, message: 'method not allowed' } };
    }
  };
  const server = await startServer({ 'PUT /connectors/*': handle, 'GET /connectors/*': handle, 'PATCH /connectors/*': handle, 'DELETE /connectors/*': handle });
  return Object.assign(server, { connectors });
}
