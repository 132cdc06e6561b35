// The pre-flight reads on the real cluster: connector info, offsets, the diff an operator sees,
// and a stopped connector in `offsetctl connectors`.
// Real parts: the sandbox's Kafka broker and Connect cluster, the CLI in-process.
import { test, before, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getSandbox } from '../support/sandbox.js';
import { numberedLines, sandboxRest, startPipeline, tempDir, type ConnectRest, type FilePipeline } from '../support/connect.js';
import { runInProcess } from '../support/in-process.js';
import { uniqueName, waitForSourceCaughtUp } from '../../src/sandbox/file-pipeline.js';
import { HttpClient } from '../../src/http/client.js';
import { diffOffsets, getConnectorInfo, getOffsets, validateOffsetsShape } from '../../src/ops/index.js';
import { renderDiff } from '../../src/cli/render/diff.js';
import { OpsError } from '../../src/ops/errors.js';

let url = '';
let rest: ConnectRest;
let pipeline: FilePipeline;
const http = new HttpClient({ timeoutMs: 30_000 });

before(async () => {
  url = (await getSandbox()).connect[0] as string;
  rest = await sandboxRest();
  pipeline = await startPipeline(rest, 'preflight', numberedLines('preflight', 3), { withSink: false });
  await waitForSourceCaughtUp(rest, pipeline);
});

after(async () => {
  await pipeline?.remove();
  await http.close();
});

test('getConnectorInfo reads type, state, tasks and config', async () => {
  const info = await getConnectorInfo(http, url, pipeline.source);
  assert.equal(info.name, pipeline.source);
  assert.equal(info.type, 'source');
  assert.equal(info.state, 'RUNNING');
  assert.deepEqual(info.tasks.map((t) => [t.id, t.state]), [[0, 'RUNNING']]);
  assert.equal(info.config.file, pipeline.inputFile);
});

test('an unknown connector is E_CONNECTOR_NOT_FOUND with existing names', async () => {
  await assert.rejects(getConnectorInfo(http, url, 'missing-h6-connector'), (err: unknown) => {
    assert.ok(err instanceof OpsError);
    assert.equal(err.code, 'E_CONNECTOR_NOT_FOUND');
    assert.match(err.message, /"missing-h6-connector" not found .*existing connectors: /);
    return true;
  });
});

test('rewinding the source to position 0: the diff shows one changed partition', async () => {
  const current = await getOffsets(http, url, pipeline.source);
  const target = { offsets: [{ partition: { filename: pipeline.inputFile }, offset: { position: 0 } }] };
  validateOffsetsShape('source', target);
  const diff = diffOffsets(current, target);
  assert.deepEqual(diff.counts, { changed: 1, added: 0, removed: 0, unchanged: 0 });
  const size = (current.offsets[0]!.offset as { position: number }).position;
  assert.equal(renderDiff(diff), `~ {"filename":${JSON.stringify(pipeline.inputFile)}}: {"position":${size}} → {"position":0}\n1 changed, 0 added, 0 removed, 0 unchanged.`);
});

test('a connector created STOPPED shows as STOPPED without tasks', async (t) => {
  const name = uniqueName('it-stopped');
  const file = join(tempDir('stopped'), 'in.txt');
  writeFileSync(file, 'x\n');
  await rest.createConnector(name, { 'connector.class': 'org.apache.kafka.connect.file.FileStreamSourceConnector', 'tasks.max': '1', file, topic: `${name}-topic` }, 'STOPPED');
  t.after(() => rest.deleteConnector(name));
  await rest.waitForStopped(name);
  const run = await runInProcess(['connectors', '--url', url]);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, new RegExp(`^${name}\\s+source\\s+STOPPED\\s+-$`, 'm'));
  const info = await getConnectorInfo(http, url, name);
  assert.deepEqual([info.state, info.tasks], ['STOPPED', []]);
});
