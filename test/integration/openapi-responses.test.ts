// Real responses of the sandbox's Kafka Connect workers match the response schemas of
// openapi/kafka-connect.yaml, success and error bodies alike.
// Real parts: the sandbox's Kafka broker and Connect cluster.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { sandboxRest, startPipeline, numberedLines } from '../support/connect.js';
import { waitForLines } from '../support/files.js';
import { ResponseChecker } from '../support/openapi.js';
import { waitForSinkCommitted, waitForSourceCaughtUp } from '../../src/sandbox/index.js';

const checker = new ResponseChecker();

test('live responses validate against the OpenAPI description', { timeout: 240_000 }, async (t) => {
  const rest = await sandboxRest();
  const problems: string[] = [];
  const call = async (operationId: string, method: string, path: string, body?: unknown, expectStatus?: number): Promise<unknown> => {
    const response = await rest.request(method, path, body);
    if (expectStatus !== undefined && response.status !== expectStatus) problems.push(`${operationId}: expected ${expectStatus}, got ${response.status} ${JSON.stringify(response.body)}`);
    problems.push(...checker.check(operationId, response.status, response.body));
    return response.body;
  };

  await call('getServerInfo', 'GET', '/', undefined, 200);
  await call('getHealth', 'GET', '/health', undefined, 200);
  await call('listConnectorPlugins', 'GET', '/connector-plugins', undefined, 200);
  await call('listConnectorPlugins', 'GET', '/connector-plugins?connectorsOnly=false', undefined, 200);
  await call('getConnectorPluginConfig', 'GET', '/connector-plugins/FileStreamSource/config', undefined, 200);
  await call('validateConnectorConfig', 'PUT', '/connector-plugins/FileStreamSource/config/validate',
    { 'connector.class': 'org.apache.kafka.connect.file.FileStreamSourceConnector', topic: 'x' }, 200);

  const pipeline = await startPipeline(rest, 'schemas', numberedLines('schemas', 3));
  t.after(() => pipeline.remove());
  const src = encodeURIComponent(pipeline.source);
  const sink = encodeURIComponent(pipeline.sink);
  await waitForLines(pipeline.outputFile, 3);
  await waitForSourceCaughtUp(rest, pipeline);
  await waitForSinkCommitted(rest, pipeline, 3);

  const list = await call('listConnectors', 'GET', '/connectors', undefined, 200);
  assert.ok(Array.isArray(list) && list.includes(pipeline.source), `listConnectors lacks ${pipeline.source}: ${JSON.stringify(list)}`);
  const expanded = await call('listConnectors', 'GET', '/connectors?expand=status&expand=info', undefined, 200) as Record<string, unknown>;
  assert.ok(expanded[pipeline.sink], 'expand=status&expand=info lacks the sink');
  await call('getConnector', 'GET', `/connectors/${src}`, undefined, 200);
  await call('getConnectorConfig', 'GET', `/connectors/${src}/config`, undefined, 200);
  await call('getConnectorStatus', 'GET', `/connectors/${src}/status`, undefined, 200);
  await call('getConnectorTasks', 'GET', `/connectors/${src}/tasks`, undefined, 200);
  await call('getTaskStatus', 'GET', `/connectors/${src}/tasks/0/status`, undefined, 200);
  await call('getConnectorTopics', 'GET', `/connectors/${sink}/topics`, undefined, 200);
  const sourceOffsets = await call('getConnectorOffsets', 'GET', `/connectors/${src}/offsets`, undefined, 200);
  const sinkOffsets = await call('getConnectorOffsets', 'GET', `/connectors/${sink}/offsets`, undefined, 200);
  // The two shapes must each match exactly one branch of the oneOf.
  assert.ok(checker.check('getConnectorOffsets', 200, sourceOffsets).length === 0 && checker.check('getConnectorOffsets', 200, sinkOffsets).length === 0);

  await call('stopConnector', 'PUT', `/connectors/${src}/stop`, undefined, 204);
  await rest.waitForStopped(pipeline.source);
  await call('getConnectorStatus', 'GET', `/connectors/${src}/status`, undefined, 200);
  await call('alterConnectorOffsets', 'PATCH', `/connectors/${src}/offsets`,
    { offsets: [{ partition: { filename: pipeline.inputFile }, offset: { position: 0 } }] }, 200);
  await call('alterConnectorOffsets', 'PATCH', `/connectors/${src}/offsets`, { offsets: [] }, 400);
  await call('resetConnectorOffsets', 'DELETE', `/connectors/${src}/offsets`, undefined, 200);
  await call('getConnectorOffsets', 'GET', `/connectors/${src}/offsets`, undefined, 200);
  await call('resumeConnector', 'PUT', `/connectors/${src}/resume`, undefined, 202);
  await rest.waitForRunning(pipeline.source);
  // Offsets of a running connector cannot change: 400, with the error body.
  await call('alterConnectorOffsets', 'PATCH', `/connectors/${src}/offsets`,
    { offsets: [{ partition: { filename: pipeline.inputFile }, offset: { position: 0 } }] }, 400);
  await call('pauseConnector', 'PUT', `/connectors/${src}/pause`, undefined, 202);
  await call('resumeConnector', 'PUT', `/connectors/${src}/resume`, undefined, 202);
  await call('restartConnector', 'POST', `/connectors/${sink}/restart?includeTasks=true&onlyFailed=false`, undefined, 202);
  // Straight after a restart the connector is RESTARTING, and Connect (4.4.0) lists its version as
  // null until it runs again; the restart's own 202 does so too when the connector was still restarting.
  await call('restartConnector', 'POST', `/connectors/${src}/restart?includeTasks=true&onlyFailed=false`, undefined, 202);
  await call('getConnectorStatus', 'GET', `/connectors/${src}/status`, undefined, 200);
  await rest.waitForRunning(pipeline.source);

  // Create (with initial_state), replace the configuration, restart a task, delete.
  const extra = `${pipeline.source}-stopped`;
  const extraConfig = { 'connector.class': 'org.apache.kafka.connect.file.FileStreamSourceConnector', 'tasks.max': '1', file: pipeline.inputFile, topic: pipeline.topic };
  t.after(() => rest.deleteConnector(extra));
  await call('createConnector', 'POST', '/connectors', { name: extra, config: extraConfig, initial_state: 'STOPPED' }, 201);
  await call('createConnector', 'POST', '/connectors', { name: extra, config: extraConfig }, 409);
  await rest.waitForStopped(extra);
  await call('putConnectorConfig', 'PUT', `/connectors/${encodeURIComponent(extra)}/config`, { ...extraConfig, 'tasks.max': '1', name: extra }, 200);
  await call('restartTask', 'POST', `/connectors/${src}/tasks/0/restart`, undefined, 204);
  await call('restartConnector', 'POST', `/connectors/${src}/restart`, undefined, 204);
  await call('deleteConnector', 'DELETE', `/connectors/${encodeURIComponent(extra)}`, undefined, 204);

  const missing = encodeURIComponent('no-such-connector-for-offsetctl');
  await call('getConnectorStatus', 'GET', `/connectors/${missing}/status`, undefined, 404);
  await call('stopConnector', 'PUT', `/connectors/${missing}/stop`, undefined, 404);
  await call('getConnectorOffsets', 'GET', `/connectors/${missing}/offsets`, undefined, 404);
  await call('getConnector', 'GET', `/connectors/${missing}`, undefined, 404);

  assert.deepEqual(problems, [], `responses that do not match openapi/kafka-connect.yaml:\n${problems.join('\n')}`);
});

test('a response that breaks the schema is reported (the checker can fail)', () => {
  assert.notDeepEqual(checker.check('getConnectorStatus', 200, { name: 'x', connector: { state: 'SLEEPING' }, tasks: [] }), []);
  assert.notDeepEqual(checker.check('stopConnector', 200, undefined), [], 'stop answers 204, a 200 is not declared');
  assert.notDeepEqual(checker.check('getConnectorOffsets', 404, { message: 'no error_code' }), []);
  assert.deepEqual(checker.check('getConnectorOffsets', 200, { offsets: [{ partition: { kafka_topic: 't', kafka_partition: 0 }, offset: { kafka_offset: 4 } }] }), []);
});
