// Arazzo 1.1 AsyncAPI steps on the sandbox's real broker: send → receive with correlation, a
// receive that times out, a payload refused by the message schema before anything is sent, and
// no consumer group left behind; the first send to a topic nobody created (the sandbox broker
// creates topics on first use; a second broker of the test's own does not). Each test uses its
// own topics.
// Real parts: the sandbox's Kafka broker and Connect cluster.
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Admin, Producer } from '@platformatic/kafka';
import { loadDocumentFile, parseDocumentText } from '../../src/arazzo/document/index.js';
import { runWorkflow } from '../../src/arazzo/index.js';
import { loadSources } from '../../src/arazzo/sources/index.js';
import { HttpClient } from '../../src/http/client.js';
import { createKafkaTransport } from '../../src/kafka/messaging.js';
import { tempDir } from '../support/connect.js';
import { getSandbox } from '../support/sandbox.js';
import { repoRoot } from '../support/repo.js';
import { listTopics, startSecondBroker } from '../support/positions-kafka.js';

const newTopicDoc = join(repoRoot, 'test', 'fixtures', 'arazzo', 'send-to-new-topic.arazzo.yaml');

const asyncapi = (topic: string): string => `asyncapi: 3.0.0
info: {title: orders, version: 1.0.0}
servers:
  sandbox: {host: 'localhost:9', protocol: kafka}
channels:
  orders:
    address: ${topic}
    messages:
      order: {$ref: '#/components/messages/Order'}
operations:
  placeOrder:
    action: receive
    channel: {$ref: '#/channels/orders'}
components:
  messages:
    Order:
      contentType: application/json
      correlationId: {location: '$message.header#/orderRequestId'}
      headers:
        type: object
        required: [orderRequestId]
        properties: {orderRequestId: {type: string}}
      payload:
        type: object
        required: [petId]
        properties: {petId: {type: integer}}
      bindings:
        kafka: {key: {type: string}}
`;

const arazzoDoc = `arazzo: 1.1.0
info: {title: messages on the sandbox, version: 1.0.0}
sourceDescriptions:
  - {name: orders, url: ./orders.asyncapi.yaml, type: asyncapi}
workflows:
  - workflowId: roundtrip
    inputs:
      type: object
      properties: {corr: {type: string}, petId: {}, timeout: {type: integer}}
    steps:
      - stepId: decoy
        operationId: placeOrder
        action: send
        parameters: [{name: orderRequestId, in: header, value: 'other-{$inputs.corr}'}]
        requestBody: {payload: {petId: 1}}
      - stepId: place
        operationId: placeOrder
        action: send
        x-kafka-key: $inputs.corr
        parameters: [{name: orderRequestId, in: header, value: $inputs.corr}]
        requestBody: {payload: {petId: $inputs.petId}}
      - stepId: confirm
        channelPath: '{$sourceDescriptions.orders.url}#/channels/orders'
        action: receive
        correlationId: $inputs.corr
        timeout: 10000
        successCriteria:
          - condition: $message.payload#/petId == $inputs.petId
        outputs:
          petId: $message.payload#/petId
          corr: $message.header.orderRequestId
    outputs:
      petId: $steps.confirm.outputs.petId
  - workflowId: waitOnly
    steps:
      - stepId: confirm
        channelPath: '{$sourceDescriptions.orders.url}#/channels/orders'
        action: receive
        correlationId: nobody-sends-this
        timeout: 1500
`;

describe('AsyncAPI steps on the sandbox broker', () => {
  let bootstrap: string;
  let admin: Admin;
  const http = new HttpClient();
  const topics: string[] = [];

  before(async () => {
    bootstrap = (await getSandbox()).bootstrap;
    admin = new Admin({ clientId: 'arazzo-messages-test', bootstrapBrokers: [bootstrap] });
  });
  after(async () => {
    if (topics.length > 0) await admin.deleteTopics({ topics }).catch(() => undefined);
    await admin.close();
    await http.close();
  });

  async function setUp(label: string): Promise<{ topic: string; registry: Awaited<ReturnType<typeof loadSources>> }> {
    const topic = `arazzo11-${label}-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;
    await admin.createTopics({ topics: [topic], partitions: 2, replicas: 1 });
    topics.push(topic);
    const dir = tempDir('arazzo11-messages');
    writeFileSync(join(dir, 'orders.asyncapi.yaml'), asyncapi(topic));
    const doc = parseDocumentText(arazzoDoc, join(dir, 'flow.arazzo.yaml'));
    const registry = await loadSources(doc, { servers: { byName: { orders: bootstrap } } });
    return { topic, registry };
  }

  it('send then receive: the matching record (correlation id and criteria) is found, a record from before the run is not', async () => {
    const { topic, registry } = await setUp('roundtrip');
    // A record with the same correlation id from before the run: the receive must not take it.
    const producer = new Producer({ clientId: 'arazzo-messages-test', bootstrapBrokers: [bootstrap] });
    await producer.send({ messages: [{ topic, value: Buffer.from('{"petId": 7}'), headers: new Map([[Buffer.from('orderRequestId'), Buffer.from('c-1')]]) }] });
    await producer.close();
    const messages = createKafkaTransport();
    try {
      const result = await runWorkflow({ registry, workflowId: 'roundtrip', inputs: { corr: 'c-1', petId: 7 }, http, messages });
      assert.equal(result.status, 'passed', JSON.stringify(result.error));
      assert.equal(result.outputs['petId'], 7);
      const [decoy, place, confirm] = result.steps;
      assert.equal(confirm!.outputs['corr'], 'c-1');
      assert.equal(place!.message?.address, topic);
      assert.deepEqual([confirm!.message?.partition, confirm!.message?.offset], [place!.message?.partition, place!.message?.offset], 'the record the workflow sent is the one received');
      assert.notDeepEqual([confirm!.message?.partition, confirm!.message?.offset], [decoy!.message?.partition, decoy!.message?.offset]);
      // The record key came from x-kafka-key: read the sent record back from the start of the topic.
      const stop = new AbortController();
      const endpoint = { source: 'orders', server: 'sandbox', protocol: 'kafka', bootstrap: [bootstrap], address: topic };
      for await (const record of messages.receive(endpoint, { offsets: new Map(), fromStart: true }, stop.signal)) {
        if (record.partition === place!.message?.partition && record.offset === place!.message?.offset) {
          assert.equal(record.key?.toString(), 'c-1');
          assert.equal(record.headers['orderRequestId'], 'c-1');
          stop.abort();
        }
      }
    } finally {
      await messages.close();
    }
    const groups = await admin.listGroups();
    assert.equal([...groups.keys()].some((g) => g.startsWith('offsetctl-arazzo')), false, 'no consumer group was created');
  });

  it('a receive with no matching record fails with E_TIMEOUT after its timeout, saying what it read', async () => {
    const { registry } = await setUp('timeout');
    const messages = createKafkaTransport();
    try {
      const started = Date.now();
      const result = await runWorkflow({ registry, workflowId: 'waitOnly', inputs: {}, http, messages });
      const elapsed = Date.now() - started;
      assert.equal(result.status, 'failed');
      assert.equal(result.steps[0]!.error?.code, 'E_TIMEOUT');
      assert.match(result.steps[0]!.error!.message, /no matching message on .* within 1500 ms \(read 0 messages since the run started, 0 with correlation id "nobody-sends-this"\)/);
      assert.ok(elapsed >= 1400 && elapsed < 8000, `took ${elapsed} ms`);
    } finally {
      await messages.close();
    }
  });

  it('a payload that does not match the message schema fails the send step and nothing reaches the topic', async () => {
    const { topic, registry } = await setUp('schema');
    const messages = createKafkaTransport();
    try {
      const result = await runWorkflow({ registry, workflowId: 'roundtrip', inputs: { corr: 'c-2', petId: 'seven' }, http, messages });
      assert.equal(result.status, 'failed');
      const place = result.steps.find((s) => s.stepId === 'place')!;
      assert.equal(place.error?.code, 'E_MESSAGE_SCHEMA');
      assert.match(place.error!.message, /nothing was sent: message "order": payload \/petId must be integer/);
      assert.equal(result.steps.some((s) => s.stepId === 'confirm'), false);
    } finally {
      await messages.close();
    }
    // Only the decoy (valid) reached the topic.
    const probe = createKafkaTransport();
    try {
      const end = (await probe.mark({ source: 'orders', server: 'sandbox', protocol: 'kafka', bootstrap: [bootstrap], address: topic })) as { offsets: Map<number, bigint> };
      assert.equal([...end.offsets.values()].reduce((a, b) => a + b, 0n), 1n);
    } finally {
      await probe.close();
    }
  });

  describe('a send to a topic nobody created', () => {
    const run = (): string => `${Date.now().toString(36)}-${Math.floor(Math.random() * 1e6)}`;

    it('on a broker that creates topics on first use (the sandbox), the send creates it and succeeds, and the receive marked before it existed sees the record', async () => {
      const id = run();
      const topic = `offsetctl-new-${id}`;
      topics.push(topic);
      assert.equal((await listTopics(bootstrap)).includes(topic), false, 'nobody created the topic');
      const registry = await loadSources(await loadDocumentFile(newTopicDoc), { servers: { byName: { events: bootstrap } } });
      const messages = createKafkaTransport();
      try {
        const result = await runWorkflow({ registry, inputs: { run: id }, http, messages });
        assert.equal(result.status, 'passed', JSON.stringify(result.steps.map((s) => [s.stepId, s.error])));
        const [publish, readBack] = result.steps;
        assert.equal(publish!.message?.address, topic);
        assert.deepEqual([readBack!.message?.partition, readBack!.message?.offset], [publish!.message?.partition, publish!.message?.offset], 'the first record of the new topic is the one received');
        assert.equal(result.outputs['n'], 1);
      } finally {
        await messages.close();
      }
      assert.equal((await listTopics(bootstrap)).includes(topic), true, 'the broker created the topic');
    });

    it('on a broker that does not create topics, the send fails at once, naming the topic, the broker setting and how to create it; nothing is created', async () => {
      const second = await startSecondBroker({ autoCreateTopics: false });
      const id = run();
      const topic = `offsetctl-new-${id}`;
      const messages = createKafkaTransport();
      try {
        const registry = await loadSources(await loadDocumentFile(newTopicDoc), { servers: { byName: { events: second.bootstrap } } });
        const started = Date.now();
        const result = await runWorkflow({ registry, inputs: { run: id }, http, messages });
        const elapsed = Date.now() - started;
        assert.equal(result.status, 'failed');
        assert.deepEqual(result.steps.map((s) => s.stepId), ['publish'], 'the receive never ran');
        const error = result.steps[0]!.error!;
        assert.equal(error.code, 'E_MESSAGE');
        assert.equal(
          error.message,
          `workflow "first-send" step "publish": sending to ${topic} failed: topic "${topic}" does not exist, and the broker at ${second.bootstrap} does not create topics on first use (auto.create.topics.enable=false); create it first (kafka-topics.sh --bootstrap-server ${second.bootstrap} --create --topic ${topic}, or your platform's tooling)`,
        );
        // "At once": no producer-style wait for the topic (30 s by default); generous for a loaded machine.
        assert.ok(elapsed < 15_000, `took ${elapsed} ms`);
        assert.equal((await listTopics(second.bootstrap)).includes(topic), false);
      } finally {
        await messages.close();
        await second.stop();
      }
    });
  });
});
