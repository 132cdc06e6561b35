// Child process for profiling figure 1 with `node --cpu-prof`: runs the counter loop a few times
// against a given server. (An in-process inspector session distorts a loop of 100 µs steps.)
import { resolve } from 'node:path';
import { loadDocumentFile, loadSources, runWorkflow } from '../src/arazzo/index.js';
import { HttpClient } from '../src/http/client.js';
import { fixtures } from './figure.js';

const [url, loops = '5'] = process.argv.slice(2);
if (!url) {
  process.stderr.write('usage: node dist/bench/engine-loop-child.js <server-url> [loops]\n');
  process.exit(2);
}
const http = new HttpClient();
const registry = await loadSources(await loadDocumentFile(resolve(fixtures, 'counter-loop.arazzo.yaml')), { servers: { all: url } });
for (let i = 0; i < Number(loops); i++) {
  const result = await runWorkflow({ registry, inputs: { runId: `profile-${process.pid}-${i}`, limit: 1000 }, http, maxSteps: 2000 });
  if (result.status !== 'passed') throw new Error(`counter loop failed: ${result.error?.message ?? ''}`);
}
await http.close();
