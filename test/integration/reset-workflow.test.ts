// The reset workflows end to end on the sandbox: after a reset the source connector reads its
// file from the start again, and the offsets read back while it is stopped are empty.
// Real parts: the sandbox's Kafka broker and Connect cluster, spawns the CLI.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeRun, runWorkflowCli } from '../support/cli.js';
import { numberedLines, sandboxRest, startPipeline } from '../support/connect.js';
import { waitForLines } from '../support/files.js';
import { getSandbox } from '../support/sandbox.js';
import { resetCases } from '../support/workflow-cases.js';
import { waitForSourceCaughtUp } from '../../src/sandbox/index.js';

for (const wf of resetCases) {
  test(`${wf.label}: a reset source re-reads its file from the start`, { timeout: 240_000, ...(wf.skip ? { skip: wf.skip } : {}) }, async (t) => {
    const { connect } = await getSandbox();
    const rest = await sandboxRest();
    const lines = numberedLines('reset', 4);
    const pipeline = await startPipeline(rest, 'reset', lines);
    t.after(() => pipeline.remove());
    assert.deepEqual(await waitForLines(pipeline.outputFile, lines.length), lines);
    await waitForSourceCaughtUp(rest, pipeline);
    const before = await rest.offsets(pipeline.source);

    const run = await runWorkflowCli({ file: wf.file, sources: wf.sources, server: connect[0] ?? '', inputs: { connectorName: pipeline.source } });
    assert.equal(run.result.status, 'passed', `the workflow failed:\n${describeRun(run)}`);
    assert.deepEqual(run.result.outputs['offsetsBeforeReset'], before.offsets, 'offsetsBeforeReset must equal what GET /offsets returned before');
    // Connect may list a reset partition with "offset": null (its tombstone) instead of leaving it
    // out (seen on 3.6.2 and 4.4.0 under load); the workflows count both as cleared.
    const after = run.result.outputs['offsetsAfterReset'] as Array<{ offset: unknown }>;
    assert.deepEqual(after.filter((o) => o.offset !== null), [], 'offsets read back after the reset must be empty (or null)');

    await rest.waitForRunning(pipeline.source);
    assert.deepEqual(await waitForLines(pipeline.outputFile, lines.length * 2), [...lines, ...lines], 'the file is read again from the start');
  });
}
