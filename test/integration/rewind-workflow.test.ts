// The rewind workflows end to end on the sandbox, with data that really flows:
// FileStreamSource -> topic -> FileStreamSink. Rewinding the source to position 0 makes every
// line arrive in the sink's file a second time; rewinding the sink to a kafka_offset re-delivers
// exactly the records from that offset on.
// Real parts: the sandbox's Kafka broker and Connect cluster, spawns the CLI.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeRun, runWorkflowCli } from '../support/cli.js';
import { numberedLines, sandboxRest, startPipeline } from '../support/connect.js';
import { linesAfterQuiet, waitForLines } from '../support/files.js';
import { getSandbox } from '../support/sandbox.js';
import { rewindCases } from '../support/workflow-cases.js';
import { waitForSinkCommitted, waitForSourceCaughtUp } from '../../src/sandbox/index.js';

for (const wf of rewindCases) {
  test(`${wf.label}: rewinding a source to position 0 replays every line into the sink`, { timeout: 240_000, ...(wf.skip ? { skip: wf.skip } : {}) }, async (t) => {
    const { connect } = await getSandbox();
    const rest = await sandboxRest();
    const lines = numberedLines('rewind-source', 5);
    const pipeline = await startPipeline(rest, 'rewind-src', lines);
    t.after(() => pipeline.remove());
    assert.deepEqual(await waitForLines(pipeline.outputFile, lines.length), lines);
    await waitForSourceCaughtUp(rest, pipeline);
    const before = await rest.offsets(pipeline.source);

    const target = [{ partition: { filename: pipeline.inputFile }, offset: { position: 0 } }];
    // The second worker: a follower for some connectors, so forwarding to the leader is exercised too.
    const run = await runWorkflowCli({ file: wf.file, sources: wf.sources, server: connect[connect.length - 1] ?? '', inputs: { connectorName: pipeline.source, offsets: target } });
    assert.equal(run.result.status, 'passed', `the workflow failed:\n${describeRun(run)}`);
    assert.equal(run.cli.status, 0);
    assert.deepEqual(run.result.outputs['previousOffsets'], before.offsets, 'previousOffsets must equal what GET /offsets returned before the run');
    assert.deepEqual(run.result.outputs['rewoundOffsets'], target, 'rewoundOffsets must show position 0');

    await rest.waitForRunning(pipeline.source);
    const after = await waitForLines(pipeline.outputFile, lines.length * 2);
    assert.deepEqual(after, [...lines, ...lines], 'every line arrives again, in order, after the rewind');
  });

  // The seed PATCHes without waiting for the stop to settle; its GET in between is what lets it
  // pass on a sink (see docs/sandbox.md): a failure here is that race, not a flaky test.
  test(`${wf.label}: rewinding a sink to kafka_offset 2 re-delivers exactly the records after it`, { timeout: 240_000, ...(wf.skip ? { skip: wf.skip } : {}) }, async (t) => {
    const { connect } = await getSandbox();
    const rest = await sandboxRest();
    const lines = numberedLines('rewind-sink', 6);
    const pipeline = await startPipeline(rest, 'rewind-sink', lines);
    t.after(() => pipeline.remove());
    assert.deepEqual(await waitForLines(pipeline.outputFile, lines.length), lines);
    await waitForSinkCommitted(rest, pipeline, lines.length);
    const before = await rest.offsets(pipeline.sink);

    const target = [{ partition: { kafka_topic: pipeline.topic, kafka_partition: 0 }, offset: { kafka_offset: 2 } }];
    const run = await runWorkflowCli({ file: wf.file, sources: wf.sources, server: connect[0] ?? '', inputs: { connectorName: pipeline.sink, offsets: target } });
    assert.equal(run.result.status, 'passed', `the workflow failed:\n${describeRun(run)}`);
    assert.deepEqual(run.result.outputs['previousOffsets'], before.offsets);
    assert.deepEqual(run.result.outputs['rewoundOffsets'], target);

    await rest.waitForRunning(pipeline.sink);
    await waitForLines(pipeline.outputFile, lines.length + 4);
    // Kafka offset 2 is the third record: records 3..6 come again, and nothing else.
    assert.deepEqual(await linesAfterQuiet(pipeline.outputFile), [...lines, ...lines.slice(2)]);
  });
}
