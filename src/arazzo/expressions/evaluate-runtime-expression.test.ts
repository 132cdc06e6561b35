// Real parts: none (the code under test, in this process).
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import type { ExpressionContext } from '../context.js';
import { ArazzoError } from '../errors.js';
import { evaluateRuntimeExpression } from './evaluate-runtime-expression.js';
import { parseRuntimeExpression } from './parse-runtime-expression.js';
import { resolveJsonPointer } from './json-pointer.js';

function connectContext(): ExpressionContext {
  return {
    inputs: { connectorName: 'orders-sink', partitions: [0, 1], 'kafka.topic': 'orders', kafka: { topic: 'shadowed', group: 'g1' } },
    outputs: { previousOffsets: [{ partition: { 'kafka_partition': 0 }, offset: { kafka_offset: 42 } }] },
    steps: {
      stopConnector: { outputs: {} },
      captureOffsets: { outputs: { offsets: [{ id: 7 }], 'b.c': 'dotted key', b: { c: 'nested', d: 'only nested' } } },
    },
    workflows: { rewind: { inputs: { connectorName: 'x' }, outputs: { state: 'RUNNING' } } },
    sourceDescriptions: { connect: { name: 'connect', url: './connect.yaml', type: 'openapi' } },
    components: { parameters: { connector: { name: 'connector', in: 'path', value: '$inputs.connectorName' } }, inputs: { login: { type: 'object' } } },
    exchange: {
      url: 'http://127.0.0.1:8083/connectors/orders-sink/offsets',
      method: 'PATCH',
      request: { headers: { 'Content-Type': 'application/json' }, query: { expand: ['status', 'info'], page: '2' }, path: { connector: 'orders-sink' }, body: { offsets: [{ offset: 1 }] } },
      response: {
        statusCode: 200,
        headers: { 'X-Request-Id': 'abc', 'Set-Cookie': ['a=1', 'b=2'] },
        body: { connector: { state: 'STOPPED' }, 'a/b': 1, 'm~n': 2, tasks: [{ id: 0 }, { id: 1, state: 'FAILED' }] },
      },
    },
  };
}

const ctx = connectContext();
const value = (text: string): unknown => evaluateRuntimeExpression(text, ctx);

describe('evaluateRuntimeExpression: message roots', () => {
  it('reads $url, $method and $statusCode', () => {
    assert.equal(value('$url'), 'http://127.0.0.1:8083/connectors/orders-sink/offsets');
    assert.equal(value('$method'), 'PATCH');
    assert.equal(value('$statusCode'), 200);
  });

  it('reads headers case-insensitively and joins repeated ones', () => {
    assert.equal(value('$response.header.x-request-id'), 'abc');
    assert.equal(value('$response.header.X-REQUEST-ID'), 'abc');
    assert.equal(value('$request.header.content-type'), 'application/json');
    assert.equal(value('$response.header.set-cookie'), 'a=1, b=2');
  });

  it('reads query and path parameters case-sensitively', () => {
    assert.deepEqual(value('$request.query.expand'), ['status', 'info']);
    assert.equal(value('$request.query.page'), '2');
    assert.equal(value('$request.query.Page'), undefined);
    assert.equal(value('$request.path.connector'), 'orders-sink');
  });

  it('gives the parsed body and applies RFC 6901 pointers (escapes, indexes)', () => {
    assert.deepEqual(value('$request.body'), { offsets: [{ offset: 1 }] });
    assert.equal(value('$request.body#/offsets/0/offset'), 1);
    assert.equal(value('$response.body#/connector/state'), 'STOPPED');
    assert.equal(value('$response.body#/a~1b'), 1);
    assert.equal(value('$response.body#/m~0n'), 2);
    assert.equal(value('$response.body#/tasks/1/state'), 'FAILED');
    assert.deepEqual(value('$response.body#'), ctx.exchange?.response?.body);
  });
});

describe('evaluateRuntimeExpression: document roots', () => {
  it('reads inputs and outputs, with pointers', () => {
    assert.equal(value('$inputs.connectorName'), 'orders-sink');
    assert.equal(value('$inputs.partitions#/1'), 1);
    assert.equal(value('$outputs.previousOffsets#/0/offset/kafka_offset'), 42);
  });

  it('prefers the longest existing dotted key, then property access', () => {
    assert.equal(value('$inputs.kafka.topic'), 'orders');
    assert.equal(value('$inputs.kafka.group'), 'g1');
    assert.equal(value('$steps.captureOffsets.outputs.b.c'), 'dotted key');
    assert.equal(value('$steps.captureOffsets.outputs.b.d'), 'only nested');
    assert.equal(value('$steps.captureOffsets.outputs.offsets.0.id'), 7);
  });

  it('reads step and workflow outputs (and workflow inputs)', () => {
    assert.equal(value('$steps.captureOffsets.outputs.offsets#/0/id'), 7);
    assert.deepEqual(value('$steps.stopConnector.outputs'), {});
    assert.equal(value('$workflows.rewind.outputs.state'), 'RUNNING');
    assert.equal(value('$workflows.rewind.inputs.connectorName'), 'x');
  });

  it('reads source descriptions and components', () => {
    assert.equal(value('$sourceDescriptions.connect.url'), './connect.yaml');
    assert.deepEqual(value('$sourceDescriptions.connect'), { name: 'connect', url: './connect.yaml', type: 'openapi' });
    assert.deepEqual(value('$components.parameters.connector'), { name: 'connector', in: 'path', value: '$inputs.connectorName' });
    assert.equal(value('$components.parameters.connector#/in'), 'path');
    assert.equal(value('$components.inputs.login#/type'), 'object');
  });

  it('accepts a parsed expression as well as text', () => {
    assert.equal(evaluateRuntimeExpression(parseRuntimeExpression('$statusCode'), ctx), 200);
  });
});

describe('evaluateRuntimeExpression: absent data is undefined, never an error', () => {
  const absent = [
    '$inputs.missing', '$inputs.connectorName.length', '$inputs.__proto__', '$inputs.constructor', '$inputs.partitions#/5',
    '$inputs.partitions#/-', '$inputs.partitions#/01', '$response.body#/connector/state/deeper', '$response.header.missing',
    '$steps.nope.outputs.x', '$workflows.nope.outputs.x', '$sourceDescriptions.nope.url', '$components.successActions.x',
    '$steps.captureOffsets.outputs.b.c.d',
  ];
  for (const text of absent) {
    it(`${text} is undefined`, () => assert.equal(value(text), undefined));
  }

  it('everything about the exchange is undefined when there is none', () => {
    const bare: ExpressionContext = { ...ctx, exchange: undefined };
    for (const text of ['$url', '$method', '$statusCode', '$request.body', '$response.body#/a', '$response.header.x', '$request.query.a']) {
      assert.equal(evaluateRuntimeExpression(text, bare), undefined, text);
    }
  });

  it('still throws for syntax errors', () => {
    assert.throws(() => value('$inputs'), (e: unknown) => e instanceof ArazzoError && e.code === 'E_EXPRESSION');
  });

  it('a pointer into a scalar or with a bad escape is undefined', () => {
    assert.equal(resolveJsonPointer('text', '/0'), undefined);
    assert.equal(resolveJsonPointer({ a: 1 }, '/~9'), undefined);
    assert.equal(resolveJsonPointer({ '': 1 }, '/'), 1);
  });
});
