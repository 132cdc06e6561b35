// One operator's process in the shared-store race: opens the team store as its own login and
// "host", waits for the agreed moment, tries to open a run on the connector, and prints what
// happened as one line of JSON. Holds the run (and its lease) until told to exit on stdin.
import { PostgresStore } from '../../src/store/postgres/index.js';
import { pgSettings } from '../../src/store/postgres/connection.js';

const { STORE_URL, STORE_PASSWORD, CONNECTOR, HOST, AT } = process.env;
const store = new PostgresStore(pgSettings(STORE_URL!, { passwordEnv: 'STORE_PASSWORD', env: { STORE_PASSWORD } }), {
  owner: { pid: process.pid, hostname: HOST! }, actor: { via: 'cli', version: 'test' },
});
await store.ready();
await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(AT) - Date.now())));
try {
  const run = await store.beginRun({
    clusterUrl: 'http://127.0.0.1:8083', clusterKey: 'kafka:race', connector: CONNECTOR!, operation: 'rewind',
    workflowFile: 'w.yaml', workflowId: 'w', inputs: {},
  });
  process.stdout.write(`${JSON.stringify({ ok: true, runId: run.id })}\n`);
} catch (err) {
  process.stdout.write(`${JSON.stringify({ ok: false, code: (err as { code?: string }).code, message: (err as Error).message })}\n`);
}
process.stdin.resume();
process.stdin.on('end', () => void store.close().then(() => process.exit(0)));
