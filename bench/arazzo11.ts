// Figures 6 and 7 (Arazzo 1.1):
// 6. A workflow of 200 independent steps and a last one that waits for them all (its dependsOn
//    lists them: a 1.1 step dependsOn may not be empty, so that is what makes the workflow run by
//    dependencies), each one GET to a loopback server that answers after 5 ms, standing in for a
//    REST call's latency, run with --concurrency 8 and with --concurrency 1 (sequential), rounds
//    interleaved: the ratio sequential/concurrent.
// 7. send → receive round trip on the sandbox broker: one workflow sends a record and receives
//    it back by correlation id; the figure is the two steps' time (send ack + receive match).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Admin } from '@platformatic/kafka';
import { loadDocumentFile, loadSources, runWorkflow } from '../src/arazzo/index.js';
import { HttpClient } from '../src/http/client.js';
import { createKafkaTransport } from '../src/kafka/messaging.js';
import { cli, skippedRow, type BenchOptions, type FigureResult } from './figure.js';
import { timeSpawn } from './process.js';
import { median, quantile, ratio, round, summarize } from './stats.js';

const STEPS = 200;
const DELAY_MS = 5;
const CONCURRENCY = 8;

/** A loopback server in its own process (so it does not share the engine's event loop). */
async function startDelayServer(): Promise<{ url: string; child: ChildProcess }> {
  const code = `const http=require('node:http');const s=http.createServer((q,r)=>{const ms=Number(new URL(q.url,'http://x').searchParams.get('ms')||0);setTimeout(()=>{r.writeHead(200,{'content-type':'application/json'});r.end('{"ok":true}')},ms)});s.keepAliveTimeout=60000;s.listen(0,'127.0.0.1',()=>console.log(JSON.stringify({url:'http://127.0.0.1:'+s.address().port})));`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('error', reject);
  });
  return { url: (JSON.parse(line) as { url: string }).url, child };
}

function fanOutDocument(dir: string): string {
  writeFileSync(
    join(dir, 'api.yaml'),
    `openapi: 3.0.3
info: {title: delay, version: 1.0.0}
paths:
  /work/{i}:
    get:
      operationId: work
      parameters:
        - {name: i, in: path, required: true, schema: {type: integer}}
        - {name: ms, in: query, schema: {type: integer}}
      responses: {'200': {description: ok}}
`,
  );
  const step = (i: number, dependsOn = ''): string => `      - stepId: s${i}
        operationId: work${dependsOn}
        parameters: [{name: i, in: path, value: ${i}}, {name: ms, in: query, value: ${DELAY_MS}}]
        successCriteria: [{condition: $statusCode == 200}]
`;
  const ids = Array.from({ length: STEPS }, (_, i) => `s${i}`);
  const steps = ids.map((_, i) => step(i)).join('') + step(STEPS, `\n        dependsOn: [${ids.join(', ')}]`);
  const file = join(dir, 'fan-out.arazzo.yaml');
  writeFileSync(
    file,
    `arazzo: 1.1.0
info: {title: ${STEPS} independent steps, version: 1.0.0}
sourceDescriptions:
  - {name: api, url: ./api.yaml, type: openapi}
workflows:
  - workflowId: fan-out
    steps:
${steps}`,
  );
  return file;
}

export async function measureDependsOn(options: BenchOptions): Promise<FigureResult> {
  const rounds = options.quick ? 3 : 11;
  const dir = mkdtempSync(join(tmpdir(), 'offsetctl-bench-dependson-'));
  const server = await startDelayServer();
  const http = new HttpClient();
  try {
    const registry = await loadSources(await loadDocumentFile(fanOutDocument(dir)), { servers: { all: server.url } });
    const once = async (concurrency: number): Promise<number> => {
      const started = performance.now();
      const result = await runWorkflow({ registry, inputs: {}, http, concurrency });
      const ms = performance.now() - started;
      if (result.status !== 'passed' || result.steps.length !== STEPS + 1) throw new Error(`fan-out failed: ${result.error?.message ?? result.steps.length}`);
      return ms;
    };
    await once(CONCURRENCY);
    await once(1);
    const concurrent: number[] = [];
    const sequential: number[] = [];
    for (let i = 0; i < rounds; i++) {
      concurrent.push(await once(CONCURRENCY));
      sequential.push(await once(1));
    }
    const speedup = median(sequential) / median(concurrent);
    return {
      rows: [
        {
          id: '7.dependson',
          figure: `${STEPS} independent steps and a join (dependsOn), --concurrency ${CONCURRENCY}`,
          measured: round(median(concurrent)),
          reference: round(median(sequential)),
          unit: 'ms',
          referenceLabel: `the same workflow sequentially (--concurrency 1), ${DELAY_MS} ms per response`,
          ratio: round(ratio(median(concurrent), median(sequential)), 3),
          target: 'info (ideal 0.125)',
          verdict: 'info',
          note: `${round(speedup)}× faster; concurrent p25–p75 ${round(quantile(concurrent, 0.25))}–${round(quantile(concurrent, 0.75))} ms over ${rounds} interleaved rounds`,
        },
      ],
      raw: { concurrentMs: concurrent, sequentialMs: sequential, steps: STEPS, delayMs: DELAY_MS, concurrency: CONCURRENCY },
    };
  } finally {
    await http.close();
    server.child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function sandboxBootstrap(): Promise<string | undefined> {
  const status = await timeSpawn(process.execPath, [cli, 'sandbox', 'status', '--output', 'json']);
  try {
    const parsed = JSON.parse(status.stdout) as { running?: boolean; bootstrap?: string };
    return parsed.running ? parsed.bootstrap : undefined;
  } catch {
    return undefined;
  }
}

export async function measureRoundTrip(options: BenchOptions): Promise<FigureResult> {
  const id = '8.send-receive';
  const label = 'send → receive round trip (sandbox broker)';
  const bootstrap = await sandboxBootstrap();
  if (!bootstrap) return { rows: [skippedRow(id, label, 'info', 'the sandbox is not running (`offsetctl sandbox up`)')], raw: {} };
  const rounds = options.quick ? 5 : 30;
  const dir = mkdtempSync(join(tmpdir(), 'offsetctl-bench-roundtrip-'));
  const topic = `bench-roundtrip-${process.pid}-${Date.now().toString(36)}`;
  const admin = new Admin({ clientId: 'offsetctl-bench', bootstrapBrokers: [bootstrap] });
  await admin.createTopics({ topics: [topic], partitions: 1, replicas: 1 });
  const http = new HttpClient();
  const messages = createKafkaTransport();
  try {
    writeFileSync(
      join(dir, 'ping.asyncapi.yaml'),
      `asyncapi: 3.0.0
info: {title: ping, version: 1.0.0}
servers: {sandbox: {host: 'localhost:9', protocol: kafka}}
channels:
  ping:
    address: ${topic}
    messages: {ping: {correlationId: {location: '$message.header#/id'}, payload: {type: object}}}
operations:
  ping: {action: receive, channel: {$ref: '#/channels/ping'}}
`,
    );
    writeFileSync(
      join(dir, 'ping.arazzo.yaml'),
      `arazzo: 1.1.0
info: {title: ping, version: 1.0.0}
sourceDescriptions: [{name: ping, url: ./ping.asyncapi.yaml, type: asyncapi}]
workflows:
  - workflowId: ping
    inputs: {type: object, properties: {id: {type: string}}}
    steps:
      - {stepId: send, operationId: ping, action: send, parameters: [{name: id, in: header, value: $inputs.id}], requestBody: {payload: {n: 1}}}
      - {stepId: receive, channelPath: '{$sourceDescriptions.ping.url}#/channels/ping', action: receive, correlationId: $inputs.id, timeout: 10000}
`,
    );
    const registry = await loadSources(await loadDocumentFile(join(dir, 'ping.arazzo.yaml')), { servers: { byName: { ping: bootstrap } } });
    const samples: number[] = [];
    for (let i = -2; i < rounds; i++) {
      const result = await runWorkflow({ registry, inputs: { id: `ping-${i}` }, http, messages });
      if (result.status !== 'passed') throw new Error(`round trip failed: ${result.error?.message ?? ''}`);
      if (i >= 0) samples.push(result.steps.reduce((sum, s) => sum + s.durationMs, 0));
    }
    const s = summarize(samples);
    return {
      rows: [
        {
          id,
          figure: label,
          measured: round(s.median),
          reference: null,
          unit: 'ms',
          referenceLabel: '',
          ratio: null,
          target: 'info',
          verdict: 'info',
          note: `send ack + receive match; p25–p75 ${round(s.p25)}–${round(s.p75)} ms, max ${round(s.max)} ms over ${rounds} runs`,
        },
      ],
      raw: { roundTripMs: samples },
    };
  } finally {
    await messages.close();
    await http.close();
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
