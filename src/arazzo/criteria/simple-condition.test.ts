// Real parts: none (the code under test, in this process).
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { emptyContext, type ExpressionContext } from '../context.js';
import { ArazzoError } from '../errors.js';
import { evaluateCriterion } from './evaluate-criterion.js';
import { parseSimpleCondition } from './simple-condition.js';

const ctx: ExpressionContext = {
  ...emptyContext(),
  inputs: { connectorName: 'Orders-Sink', minTasks: 2, flag: 'TRUE', list: [{ name: 'a' }, { name: 'b' }] },
  exchange: {
    url: 'http://127.0.0.1/connectors/orders-sink/status',
    method: 'GET',
    request: { headers: {}, query: {}, path: {} },
    response: {
      statusCode: 200,
      headers: { 'Content-Length': '120', ETag: 'W/"1"' },
      body: { connector: { state: 'STOPPED' }, tasks: [{ id: 0, state: 'RUNNING' }, { id: 1, state: 'FAILED' }], name: "it's", count: 0, ok: true },
    },
  },
};

function holds(condition: string, context: ExpressionContext = ctx): boolean {
  return evaluateCriterion({ condition }, context).passed;
}

describe('simple conditions: the spec examples and the seeds', () => {
  it('$statusCode == 200 passes and explains a failure with the left value', () => {
    assert.equal(holds('$statusCode == 200'), true);
    const failed = evaluateCriterion({ condition: '$statusCode == 204' }, ctx);
    assert.deepEqual(failed, { passed: false, type: 'simple', condition: '$statusCode == 204', message: '$statusCode == 204: left was 200' });
  });

  it("$response.body#/connector/state == 'STOPPED' works, case-insensitively", () => {
    assert.equal(holds("$response.body#/connector/state == 'STOPPED'"), true);
    assert.equal(holds("$response.body#/connector/state == 'stopped'"), true);
    assert.equal(holds("$response.body#/connector/state=='RUNNING'"), false);
  });
});

describe('simple conditions: literals', () => {
  it("reads integers, decimals, negatives, booleans, null and quoted strings with the '' escape", () => {
    assert.equal(holds('-1.5 < 0'), true);
    assert.equal(holds('2.50 == 2.5'), true);
    assert.equal(holds('1e3 == 1000'), true);
    assert.equal(holds('true != false'), true);
    assert.equal(holds('null == null'), true);
    assert.equal(holds("$response.body#/name == 'IT''S'"), true);
    assert.equal(holds("'' == ''"), true);
  });
});

describe('simple conditions: operators and precedence', () => {
  it('binds ! tighter than comparison, comparison tighter than &&, && tighter than ||', () => {
    assert.equal(holds('true || false && false'), true);
    assert.equal(holds('(true || false) && false'), false);
    assert.equal(holds('!false == true'), true);
    assert.equal(holds('!(1 == 2)'), true);
    assert.equal(holds('1 < 2 && 2 <= 2 && 3 > 2 && 3 >= 3 && 1 != 2'), true);
    assert.equal(holds('!!$response.body#/ok'), true);
  });

  it('gives `[index]` and `.prop` access after expressions', () => {
    assert.equal(holds("$response.body#/tasks[1].state == 'failed'"), true);
    assert.equal(holds("$response.body#/tasks[0]['state'] == 'RUNNING'"), true);
    assert.equal(holds("$inputs.list[1].name == 'B'"), true);
    assert.equal(holds('$response.body#/tasks[5].state == null'), true);
  });

  it('reads header names case-insensitively and stops them before operators', () => {
    assert.equal(holds('$response.header.content-length > 100'), true);
    assert.equal(holds("$response.header.etag!='x'"), true);
  });
});

describe('simple conditions: comparison rules', () => {
  it('compares a number and a numeric string as numbers', () => {
    assert.equal(holds("$statusCode == '200'"), true);
    assert.equal(holds("'10' > 9"), true);
    assert.equal(holds("'10' > '9'"), false, 'two strings compare as text');
  });

  it('equates booleans with true/false strings in any case, not with numbers', () => {
    assert.equal(holds('$inputs.flag == true'), true);
    assert.equal(holds('true == 1'), false);
  });

  it('treats absent as null, and absent values never order', () => {
    assert.equal(holds('$inputs.missing == null'), true);
    assert.equal(holds('$inputs.missing != 0'), true);
    assert.equal(holds('$inputs.missing < 1'), false);
    assert.equal(holds('$inputs.missing >= 1'), false);
  });

  it('orders strings case-insensitively', () => {
    assert.equal(holds("'apple' < 'Banana'"), true);
    assert.equal(holds("'ABC' <= 'abc'"), true);
  });

  it('uses truthiness for a bare value: 0 and empty are false', () => {
    assert.equal(holds('$response.body#/count'), false);
    assert.equal(holds('$response.body#/ok'), true);
    assert.equal(holds('$inputs.connectorName'), true);
  });

  it('lists the values it saw when a compound condition fails', () => {
    const result = evaluateCriterion({ condition: '$statusCode == 200 && $inputs.minTasks > 3 && $inputs.minTasks < 10' }, ctx);
    assert.equal(result.passed, false);
    assert.equal(result.message, '$statusCode == 200 && $inputs.minTasks > 3 && $inputs.minTasks < 10: $statusCode was 200; $inputs.minTasks was 2');
  });

  it('shows both sides when the right side is an expression too', () => {
    const result = evaluateCriterion({ condition: '$statusCode == $inputs.minTasks' }, ctx);
    assert.equal(result.message, '$statusCode == $inputs.minTasks: left was 200, right was 2');
  });

  it('tolerates type: simple with or without a context', () => {
    assert.equal(evaluateCriterion({ condition: '$statusCode == 200', type: 'simple' }, ctx).passed, true);
    assert.equal(evaluateCriterion({ condition: '$statusCode == 200', type: 'simple', context: '$response.body' }, ctx).context, '$response.body');
  });
});

describe('simple conditions: syntax errors name the position', () => {
  const cases: Array<[string, number, RegExp]> = [
    ['$statusCode ==', 15, /expected a value/],
    ['$statusCode = 200', 13, /expected an operator/],
    ['1 < 2 < 3', 7, /comparisons do not chain/],
    ["'open", 6, /closing quote for the string at character 1/],
    ['(1 == 1', 8, /expected '\)'/],
    ['$inputs. == 1', 9, /expected an input name/],
    ['$response.body#/tasks[x]', 23, /an index/],
    ['status == 200', 1, /expected a value/],
    ['12abc == 1', 3, /expected a number/],
    ['1 == 1 &&', 10, /expected a value/],
    ['$statusCode == "ok"', 16, /strings use single quotes/],
  ];
  for (const [text, column, pattern] of cases) {
    it(`refuses ${text}`, () => {
      assert.throws(() => parseSimpleCondition(text), (error: unknown) => {
        assert.ok(error instanceof ArazzoError);
        assert.equal(error.code, 'E_CRITERION');
        assert.match(error.message, pattern);
        assert.match(error.message, new RegExp(`at character ${column},`));
        return true;
      });
    });
  }
});
