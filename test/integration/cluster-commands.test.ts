// `offsetctl connectors` and `offsetctl offsets get` against the sandbox cluster, on a real
// FileStreamSource -> topic -> FileStreamSink pipeline.
// Real parts: the sandbox's Kafka broker and Connect cluster, the CLI in-process.
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { getSandbox } from '../support/sandbox.js';
import { numberedLines, sandboxRest, startPipeline, tempDir, type ConnectRest, type FilePipeline } from '../support/connect.js';
import { runInProcess } from '../support/in-process.js';
import { waitForSinkCommitted, waitForSourceCaughtUp } from '../../src/sandbox/file-pipeline.js';
import { validateOffsetsShape } from '../../src/ops/offsets/offsets-shape.js';

let url = '';
let rest: ConnectRest;
let pipeline: FilePipeline;
const LINES = 5;

before(async () => {
  url = (await getSandbox()).connect[0] as string;
  rest = await sandboxRest();
  pipeline = await startPipeline(rest, 'cluster', numberedLines('cluster', LINES));
  await waitForSourceCaughtUp(rest, pipeline);
  await waitForSinkCommitted(rest, pipeline, LINES);
});

after(async () => {
  await pipeline?.remove();
});

test('connectors lists the pipeline with type, state and task states (text and JSON)', async () => {
  const json = await runInProcess(['connectors', '--url', url, '--output', 'json']);
  assert.equal(json.status, 0, json.stderr);
  const list = JSON.parse(json.stdout) as Array<{ name: string; type: string; state: string; tasks: Array<{ id: number; state: string }> }>;
  const source = list.find((c) => c.name === pipeline.source);
  const sink = list.find((c) => c.name === pipeline.sink);
  assert.deepEqual([source?.type, source?.state, source?.tasks.map((t) => [t.id, t.state])], ['source', 'RUNNING', [[0, 'RUNNING']]]);
  assert.deepEqual([sink?.type, sink?.state, sink?.tasks.map((t) => [t.id, t.state])], ['sink', 'RUNNING', [[0, 'RUNNING']]]);
  const names = list.map((c) => c.name);
  assert.deepEqual(names, [...names].sort(), 'sorted by name');

  const text = await runInProcess(['connectors'], { env: { OFFSETCTL_URL: url } });
  assert.equal(text.status, 0, text.stderr);
  assert.match(text.stdout, /^NAME\s+TYPE\s+STATE\s+TASKS$/m);
  assert.match(text.stdout, new RegExp(`^${pipeline.source}\\s+source\\s+RUNNING\\s+0:RUNNING$`, 'm'));
  assert.match(text.stdout, new RegExp(`^${pipeline.sink}\\s+sink\\s+RUNNING\\s+0:RUNNING$`, 'm'));
});

test("offsets get --output json prints exactly Kafka Connect's {\"offsets\": [...]}, valid input for rewind", async () => {
  const run = await runInProcess(['offsets', 'get', pipeline.source, '--url', url, '--output', 'json']);
  assert.equal(run.status, 0, run.stderr);
  const printed = JSON.parse(run.stdout) as unknown;
  assert.deepEqual(printed, await rest.offsets(pipeline.source));
  assert.deepEqual(printed, { offsets: [{ partition: { filename: pipeline.inputFile }, offset: { position: statSync(pipeline.inputFile).size } }] });
  validateOffsetsShape('source', printed);
});

test('offsets get shows a sink as a table of topic, partition and offset', async () => {
  const run = await runInProcess(['offsets', 'get', pipeline.sink, '--url', url]);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /^KAFKA_TOPIC\s+KAFKA_PARTITION\s+KAFKA_OFFSET$/m);
  assert.match(run.stdout, new RegExp(`^${pipeline.topic}\\s+0\\s+${LINES}$`, 'm'));
  assert.match(run.stdout, /^1 partition\.$/m);
  const json = JSON.parse((await runInProcess(['offsets', 'get', pipeline.sink, '--url', url, '--output', 'json'])).stdout) as unknown;
  validateOffsetsShape('sink', json);
});

test('a context selects the cluster when no URL is given', async () => {
  const config = join(tempDir('cluster-ctx'), 'config.yaml');
  const env = { OFFSETCTL_CONFIG: config, OFFSETCTL_URL: '' };
  assert.equal((await runInProcess(['config', 'set-context', 'sandbox', '--url', url], { env })).status, 0);
  const run = await runInProcess(['offsets', 'get', pipeline.source, '--output', 'json'], { env });
  assert.equal(run.status, 0, run.stderr);
  assert.deepEqual(JSON.parse(run.stdout), await rest.offsets(pipeline.source));
});

test('an unknown connector: exit 2, E_CONNECTOR_NOT_FOUND and existing names', async () => {
  const run = await runInProcess(['offsets', 'get', 'no-such-connector-h6', '--url', url]);
  assert.equal(run.status, 2, run.stderr);
  assert.match(run.stderr, /E_CONNECTOR_NOT_FOUND.*"no-such-connector-h6" not found at .*\(existing connectors: [^)]+\)/);
  assert.equal(run.stdout, '');
});
