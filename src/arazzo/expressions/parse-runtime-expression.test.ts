// Real parts: none (the code under test, in this process).
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { ArazzoError } from '../errors.js';
import { isRuntimeExpression, looksLikeRuntimeExpression, parseRuntimeExpression, scanRuntimeExpression } from './parse-runtime-expression.js';

function syntaxError(text: string): ArazzoError {
  try {
    parseRuntimeExpression(text);
  } catch (error) {
    if (!(error instanceof ArazzoError)) throw error;
    assert.equal(error.code, 'E_EXPRESSION');
    return error;
  }
  return assert.fail(`"${text}" parsed but should not`);
}

describe('parseRuntimeExpression: every root of the 1.0.1 grammar', () => {
  it('parses $url, $method and $statusCode', () => {
    assert.deepEqual(parseRuntimeExpression('$url'), { root: 'url', text: '$url' });
    assert.deepEqual(parseRuntimeExpression('$method'), { root: 'method', text: '$method' });
    assert.deepEqual(parseRuntimeExpression('$statusCode'), { root: 'statusCode', text: '$statusCode' });
  });

  it('parses request and response sources', () => {
    assert.deepEqual(parseRuntimeExpression('$request.header.X-Request-Id'), { root: 'request', source: 'header', name: 'X-Request-Id', text: '$request.header.X-Request-Id' });
    assert.deepEqual(parseRuntimeExpression('$request.query.page.size'), { root: 'request', source: 'query', name: 'page.size', text: '$request.query.page.size' });
    assert.deepEqual(parseRuntimeExpression('$request.path.id'), { root: 'request', source: 'path', name: 'id', text: '$request.path.id' });
    assert.deepEqual(parseRuntimeExpression('$response.body'), { root: 'response', source: 'body', text: '$response.body' });
    assert.deepEqual(parseRuntimeExpression('$response.body#/connector/state'), { root: 'response', source: 'body', pointer: '/connector/state', text: '$response.body#/connector/state' });
    assert.deepEqual(parseRuntimeExpression('$response.body#'), { root: 'response', source: 'body', pointer: '', text: '$response.body#' });
    assert.deepEqual(parseRuntimeExpression("$response.header.x-odd!#$%&'*+.^_`|~"), { root: 'response', source: 'header', name: "x-odd!#$%&'*+.^_`|~", text: "$response.header.x-odd!#$%&'*+.^_`|~" });
  });

  it('parses inputs and outputs with dotted names and pointers', () => {
    assert.deepEqual(parseRuntimeExpression('$inputs.connector.name'), { root: 'inputs', name: 'connector.name', text: '$inputs.connector.name' });
    assert.deepEqual(parseRuntimeExpression('$outputs.bar#/a~1b/0'), { root: 'outputs', name: 'bar', pointer: '/a~1b/0', text: '$outputs.bar#/a~1b/0' });
  });

  it('parses steps and workflows with field, optional name and pointer', () => {
    assert.deepEqual(parseRuntimeExpression('$steps.get-pets.outputs.pets#/0/id'), { root: 'steps', stepId: 'get-pets', field: 'outputs', name: 'pets', pointer: '/0/id', text: '$steps.get-pets.outputs.pets#/0/id' });
    assert.deepEqual(parseRuntimeExpression('$steps.a.outputs.b.c'), { root: 'steps', stepId: 'a', field: 'outputs', name: 'b.c', text: '$steps.a.outputs.b.c' });
    assert.deepEqual(parseRuntimeExpression('$steps.a.outputs'), { root: 'steps', stepId: 'a', field: 'outputs', text: '$steps.a.outputs' });
    assert.deepEqual(parseRuntimeExpression('$workflows.foo.inputs.username'), { root: 'workflows', workflowId: 'foo', field: 'inputs', name: 'username', text: '$workflows.foo.inputs.username' });
    assert.deepEqual(parseRuntimeExpression('$workflows.foo.outputs.mappedResponse#/name'), { root: 'workflows', workflowId: 'foo', field: 'outputs', name: 'mappedResponse', pointer: '/name', text: '$workflows.foo.outputs.mappedResponse#/name' });
  });

  it('reads ids that break only the SHOULD pattern up to the first .outputs / .inputs (spaces, dots)', () => {
    assert.deepEqual(parseRuntimeExpression('$steps.find item.outputs.id'), { root: 'steps', stepId: 'find item', field: 'outputs', name: 'id', text: '$steps.find item.outputs.id' });
    assert.deepEqual(parseRuntimeExpression('$steps.get.pets.outputs.x#/0'), { root: 'steps', stepId: 'get.pets', field: 'outputs', name: 'x', pointer: '/0', text: '$steps.get.pets.outputs.x#/0' });
    assert.deepEqual(parseRuntimeExpression('$workflows.Search Stations.inputs.q'), { root: 'workflows', workflowId: 'Search Stations', field: 'inputs', name: 'q', text: '$workflows.Search Stations.inputs.q' });
    assert.deepEqual(parseRuntimeExpression('$sourceDescriptions.my api.url'), { root: 'sourceDescriptions', name: 'my api', field: 'url', text: '$sourceDescriptions.my api.url' });
    // In a condition a loose id stops at an operator, so the next operand is never swallowed.
    assert.equal(scanRuntimeExpression("$steps.find item.outputs.id == 'a'", 0, 'condition').expression.text, '$steps.find item.outputs.id');
    assert.match(syntaxError('$steps.a.output.x').message, /expected a field \(one of outputs\)/);
    assert.match(syntaxError('$steps.a b').message, /at character 9, expected '\.' after the stepId/);
  });

  it('parses sourceDescriptions and components', () => {
    assert.deepEqual(parseRuntimeExpression('$sourceDescriptions.connect'), { root: 'sourceDescriptions', name: 'connect', text: '$sourceDescriptions.connect' });
    assert.deepEqual(parseRuntimeExpression('$sourceDescriptions.connect.url'), { root: 'sourceDescriptions', name: 'connect', field: 'url', text: '$sourceDescriptions.connect.url' });
    assert.deepEqual(parseRuntimeExpression('$components.parameters.page.size'), { root: 'components', kind: 'parameters', name: 'page.size', text: '$components.parameters.page.size' });
    assert.deepEqual(parseRuntimeExpression('$components.inputs.login#/properties'), { root: 'components', kind: 'inputs', name: 'login', pointer: '/properties', text: '$components.inputs.login#/properties' });
  });
});

describe('parseRuntimeExpression: syntax errors name the position and what was expected', () => {
  const cases: Array<[string, number, RegExp]> = [
    ['$inputs.', 9, /expected an input name but found the end/],
    ['$foo.bar', 2, /expected a root \(\$url, .*\) but found 'f'/],
    ['inputs.x', 1, /expected '\$'/],
    ['$steps.a.inputs.x', 10, /expected a field \(one of outputs\)/],
    ['$workflows.w.steps', 14, /one of inputs, outputs/],
    ['$request.cookie.a', 10, /expected a \$request source \(one of header, query, path, body\)/],
    ['$response.body#a', 16, /expected '\/'/],
    ['$response.body#/~2', 17, /'~0' or '~1'/],
    ['$inputs.a b', 10, /expected the end of the expression but found ' '/],
    ['$inputs.a..b', 11, /no empty segment/],
    ['$statusCode.x', 12, /expected the end/],
    ['$components.schemas.x', 13, /a components field/],
    ['$request.header.', 17, /a header name/],
    ['$steps..outputs', 8, /a stepId/],
  ];
  for (const [text, column, pattern] of cases) {
    it(`refuses ${text} at character ${column}`, () => {
      const error = syntaxError(text);
      assert.match(error.message, pattern);
      assert.match(error.message, new RegExp(`at character ${column},`));
      assert.equal(error.location?.column, column);
    });
  }

  it('refuses a non-string with E_EXPRESSION', () => {
    assert.throws(() => parseRuntimeExpression(42 as unknown as string), (e: unknown) => e instanceof ArazzoError && e.code === 'E_EXPRESSION');
  });
});

describe('isRuntimeExpression and looksLikeRuntimeExpression', () => {
  it('tells valid expressions from text', () => {
    assert.equal(isRuntimeExpression('$response.body#/a'), true);
    assert.equal(isRuntimeExpression('$statusCode == 200'), false);
    assert.equal(isRuntimeExpression('$5.00'), false);
  });

  it('treats $ + a known root followed by end, dot, # or } as meant to be an expression', () => {
    assert.equal(looksLikeRuntimeExpression('$inputs.a b'), true);
    assert.equal(looksLikeRuntimeExpression('$statusCode'), true);
    assert.equal(looksLikeRuntimeExpression('$statusCode == 200'), false);
    assert.equal(looksLikeRuntimeExpression('$HOME'), false);
    assert.equal(looksLikeRuntimeExpression('$urls'), false);
  });
});

describe('scanRuntimeExpression: where an expression ends depends on where it is written', () => {
  it('ends a pointer at whitespace or an operator in a condition', () => {
    const scanned = scanRuntimeExpression("$response.body#/a/b=='x'", 0, 'condition');
    assert.equal(scanned.expression.text, '$response.body#/a/b');
    assert.equal(scanned.end, 19);
  });

  it('ends a header name before != in a condition but keeps ! in a whole string', () => {
    assert.equal(scanRuntimeExpression("$response.header.ETag!='x'", 0, 'condition').expression.text, '$response.header.ETag');
    assert.equal(parseRuntimeExpression('$response.header.a!').text, '$response.header.a!');
  });

  it('ends a pointer at } when embedded and lets it contain spaces', () => {
    const scanned = scanRuntimeExpression('id {$response.body#/a b} end', 4, 'embedded');
    assert.equal(scanned.expression.text, '$response.body#/a b');
    assert.equal(scanned.end, 23);
  });
});
