// The shipped move, import and delete workflows run by `offsetctl workflow run` on the sandbox's
// two Connect clusters: the move document is the first multi-source workflow the engine runs
// against real workers (fromCluster and toCluster, one OpenAPI description, --server per source).
// A FileStreamSource goes to the second cluster and back: the way back finds the offsets its
// first incarnation left in the main cluster's offsets topic and clears them before writing.
// Real parts: the sandbox's Kafka broker and Connect cluster, spawns the CLI.
import * as assert from 'node:assert/strict';
import { writeFileSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { describeRun, runWorkflowCli } from '../support/cli.js';
import { ConnectRest, tempDir, uniqueName, waitFor } from '../support/connect.js';
import { repoRoot } from '../support/repo.js';
import { getSandbox, secondCluster } from '../support/sandbox.js';

const workflow = (name: string): string => join(repoRoot, 'workflows', `${name}.arazzo.yaml`);
let main: ConnectRest;
let second: ConnectRest;
let name: string;
let file: string;
let config: Record<string, string>;

before(async () => {
  main = new ConnectRest((await getSandbox()).connect[0] as string);
  second = new ConnectRest((await secondCluster()).connect[0] as string);
  name = uniqueName('wf-move');
  file = join(tempDir('offsetctl-wf-move-'), 'in.txt');
  writeFileSync(file, Array.from({ length: 8 }, (_, i) => `line ${i + 1}`).join('\n') + '\n');
  config = { 'connector.class': 'org.apache.kafka.connect.file.FileStreamSourceConnector', 'tasks.max': '1', file, topic: `${name}-topic`, name };
  await main.createConnector(name, config);
  await main.waitForRunning(name);
  await waitFor(`${name} to read its file`, async () => (await main.offsets(name)).offsets[0]?.offset?.position === 56);
});

after(async () => {
  await main?.deleteConnector(name).catch(() => undefined);
  await second?.deleteConnector(name).catch(() => undefined);
});

const stepIds = (steps: Array<{ stepId: string }>): string[] => [...new Set(steps.map((s) => s.stepId))];

test('move-connector moves a source to the other cluster with its offsets, and back, clearing the stale offsets on the way back', { timeout: 300_000 }, async () => {
  const there = await runWorkflowCli({ file: workflow('move-connector'), server: { fromCluster: main.baseUrl, toCluster: second.baseUrl }, inputs: { connectorName: name, targetName: name, config } });
  assert.equal(there.result.status, 'passed', describeRun(there));
  assert.deepEqual(stepIds(there.result.steps), ['readInitialState', 'stopConnector', 'waitForStopped', 'captureOffsets', 'createTarget', 'waitForTargetStopped', 'captureTargetOffsets', 'writeCapturedOffsets', 'verifyTargetOffsets', 'retireSource', 'deleteSource', 'confirmSourceDeleted', 'decideFinalState', 'resumeConnector', 'waitForRunning', 'readFinalState']);
  assert.deepEqual(there.result.outputs.targetOffsetsBefore, []);
  assert.deepEqual(there.result.outputs.targetOffsets, [{ partition: { filename: file }, offset: { position: 56 } }]);
  assert.equal(there.result.outputs.connectorState, 'RUNNING');
  assert.equal((await main.request('GET', `/connectors/${name}`)).status, 404, 'gone from the main cluster');
  // Every request of a step went to its own source's server.
  const steps = there.result.steps as unknown as Array<{ stepId: string; request?: { url: string } }>;
  for (const s of steps.filter((x) => x.request)) {
    const expected = ['createTarget', 'waitForTargetStopped', 'captureTargetOffsets', 'writeCapturedOffsets', 'verifyTargetOffsets', 'decideFinalState', 'resumeConnector', 'waitForRunning', 'readFinalState'].includes(s.stepId) ? second.baseUrl : main.baseUrl;
    assert.ok(s.request?.url.startsWith(`${expected}/`), `${s.stepId} went to ${s.request?.url}`);
  }

  appendFileSync(file, 'line 9\n');
  await waitFor('the moved source to read on from 56', async () => (await second.offsets(name)).offsets[0]?.offset?.position === 63);
  const back = await runWorkflowCli({ file: workflow('move-connector'), server: { fromCluster: second.baseUrl, toCluster: main.baseUrl }, inputs: { connectorName: name, targetName: name, config } });
  assert.equal(back.result.status, 'passed', describeRun(back));
  const ids = stepIds(back.result.steps);
  assert.ok(ids.includes('clearTargetOffsets') && ids.includes('confirmTargetCleared'), ids.join(' '));
  assert.deepEqual(back.result.outputs.targetOffsetsBefore, [{ partition: { filename: file }, offset: { position: 56 } }], 'what the first incarnation left behind');
  assert.deepEqual(back.result.outputs.targetOffsets, [{ partition: { filename: file }, offset: { position: 63 } }]);
  assert.equal((await second.request('GET', `/connectors/${name}`)).status, 404);
});

test('import-connector creates a connector STOPPED, writes its offsets and pauses it; delete-connector removes it, and again finds nothing to do', { timeout: 300_000 }, async () => {
  const imported = uniqueName('wf-import');
  const cfg = { ...config, name: imported, topic: `${imported}-topic` };
  try {
    const run = await runWorkflowCli({ file: workflow('import-connector'), server: second.baseUrl, inputs: { connectorName: imported, config: cfg, offsets: [{ partition: { filename: file }, offset: { position: 7 } }], targetState: 'PAUSED' } });
    assert.equal(run.result.status, 'passed', describeRun(run));
    assert.deepEqual(run.result.outputs.importedOffsets, [{ partition: { filename: file }, offset: { position: 7 } }]);
    assert.equal(run.result.outputs.connectorState, 'PAUSED');
    const exists = await runWorkflowCli({ file: workflow('import-connector'), server: second.baseUrl, inputs: { connectorName: imported, config: cfg, offsets: [], targetState: 'STOPPED' } });
    assert.equal(exists.result.status, 'failed', 'without replaceExisting a name in use fails the create');
    assert.match(JSON.stringify(exists.result.error), /createConnector/);
    const gone = await runWorkflowCli({ file: workflow('delete-connector'), server: second.baseUrl, inputs: { connectorName: imported } });
    assert.equal(gone.result.status, 'passed', describeRun(gone));
    assert.deepEqual(gone.result.outputs.offsetsBeforeDelete, [{ partition: { filename: file }, offset: { position: 7 } }]);
    const again = await runWorkflowCli({ file: workflow('delete-connector'), server: second.baseUrl, inputs: { connectorName: imported } });
    assert.equal(again.result.status, 'passed', describeRun(again));
    // Nothing to do: straight to the confirmation, or — when a worker still answered the deleted
    // connector's status (UNASSIGNED, until it reads the deletion) — after a stop answered 404.
    // Never a snapshot or a delete (this run failed at stopConnector's 404 before the workflow took it as gone).
    const path = stepIds(again.result.steps);
    assert.ok(JSON.stringify(path) === JSON.stringify(['readInitialState', 'confirmDeleted']) || JSON.stringify(path) === JSON.stringify(['readInitialState', 'stopConnector', 'confirmDeleted']), path.join(' '));
  } finally {
    await second.deleteConnector(imported).catch(() => undefined);
  }
});
