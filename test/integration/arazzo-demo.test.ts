// The Arazzo 1.1 demonstration (workflows/rewind-and-confirm-replay.arazzo.yaml) on the sandbox:
// one `offsetctl workflow run` rewinds a FileStreamSource connector through the Connect REST API
// and then receives, from the connector's topic on the broker, the first record it replays.
// Real parts: the sandbox's Kafka broker and Connect cluster, spawns the CLI.
import * as assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../engine/support/engine.js';
import { runCli } from '../support/cli.js';
import { numberedLines, sandboxRest, startPipeline } from '../support/connect.js';
import { getSandbox } from '../support/sandbox.js';
import { waitForSourceCaughtUp } from '../../src/sandbox/index.js';

test('the 1.1 demo rewinds a source connector and receives its first replayed record in the same run', { timeout: 240_000 }, async (t) => {
  const { connect, bootstrap } = await getSandbox();
  const rest = await sandboxRest();
  const lines = numberedLines('replay', 3);
  const pipeline = await startPipeline(rest, 'arazzo11-demo', lines, { withSink: false });
  t.after(() => pipeline.remove());
  await waitForSourceCaughtUp(rest, pipeline);

  const offsets = [{ partition: { filename: pipeline.inputFile }, offset: { position: 0 } }];
  const cli = await runCli([
    'workflow', 'run', join(repoRoot, 'workflows', 'rewind-and-confirm-replay.arazzo.yaml'),
    '--server', `kafkaConnect=${connect[0]}`,
    '--server', `connectorTopic=${bootstrap}`,
    '--input', `connectorName=${pipeline.source}`,
    '--input', `topic=${pipeline.topic}`,
    '--input', `offsets=${JSON.stringify(offsets)}`,
    '--input', `expectedFirstRecord=${lines[0]}`,
    '--output', 'json',
  ]);
  const result = JSON.parse(cli.stdout) as { status: string; outputs: Record<string, unknown>; steps: Array<{ workflowId: string; stepId: string; status: string; message?: { address: string; offset?: string } }>; error?: unknown };
  assert.equal(result.status, 'passed', `${JSON.stringify(result.error)}\n${cli.stderr}`);
  assert.equal(result.outputs['firstReplayedRecord'], lines[0]);
  const receive = result.steps.find((s) => s.stepId === 'receiveReplay')!;
  assert.equal(receive.message?.address, pipeline.topic);
  // The original three records sit at offsets 0-2; the replayed first line comes after them.
  assert.ok(BigInt(receive.message!.offset!) >= BigInt(lines.length), `offset ${receive.message?.offset}`);
  assert.ok(result.steps.some((s) => s.workflowId === 'rewind-connector-offsets' && s.stepId === 'rewindOffsets' && s.status === 'passed'));
});
