// Real parts: none (the code under test, in this process).
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { emptyContext, type ExpressionContext } from '../context.js';
import type { Criterion } from '../types.js';
import { checkCriterion, evaluateCriterion } from './evaluate-criterion.js';
import { findNestedQuantifier } from './regex-criterion.js';

const PETS_XML = '<pets><pet id="1" status="available"><name>Rex</name></pet><pet id="2" status="sold"><name>Tom</name></pet></pets>';

function respond(body: unknown, extra: Partial<ExpressionContext> = {}): ExpressionContext {
  return {
    ...emptyContext(),
    ...extra,
    exchange: {
      url: 'http://127.0.0.1/pets',
      method: 'GET',
      request: { headers: {}, query: {}, path: {} },
      response: { statusCode: 200, headers: { 'Content-Type': 'application/json' }, body },
    },
  };
}

const connector = respond({ connector: { state: 'FAILED', worker_id: 'w1' }, tasks: [{ id: 0, state: 'RUNNING' }, { id: 1, state: 'FAILED' }], pets: [{ name: 'Rex' }] });

/** Refused by validation, and at run time it fails (never throws) with the same message. */
function refusal(criterion: Criterion): string {
  const message = checkCriterion(criterion);
  assert.ok(message, `expected ${JSON.stringify(criterion)} to be refused`);
  const result = evaluateCriterion(criterion, connector);
  assert.equal(result.passed, false);
  assert.equal(result.message, message);
  assert.equal(evaluateCriterion(criterion, connector).message, message, 'the cached refusal says the same');
  return message;
}

describe('regex criteria: search semantics on the context value', () => {
  it('runs the spec example against $statusCode (a number, searched as "200")', () => {
    assert.equal(evaluateCriterion({ context: '$statusCode', condition: '^200$', type: 'regex' }, connector).passed, true);
    const failed = evaluateCriterion({ context: '$statusCode', condition: '^204$', type: 'regex' }, connector);
    assert.deepEqual(failed, { passed: false, type: 'regex', condition: '^204$', context: '$statusCode', message: "^204$: no match in '200'" });
  });

  it('searches anywhere unless anchored, and is case-sensitive', () => {
    assert.equal(evaluateCriterion({ context: '$response.body#/connector/state', condition: 'AIL', type: 'regex' }, connector).passed, true);
    assert.equal(evaluateCriterion({ context: '$response.body#/connector/state', condition: 'ail', type: 'regex' }, connector).passed, false);
  });

  it('searches objects as JSON text', () => {
    assert.equal(evaluateCriterion({ context: '$response.body#/connector', condition: '"worker_id":"w1"', type: 'regex' }, connector).passed, true);
  });

  it('fails (does not throw) when the context is absent', () => {
    const result = evaluateCriterion({ context: '$response.body#/nope', condition: '.*', type: 'regex' }, connector);
    assert.equal(result.passed, false);
    assert.match(result.message ?? '', /context \$response\.body#\/nope is absent/);
  });

  it('fails on a context longer than the search limit instead of searching it', () => {
    const long = respond('x'.repeat(1_000_001));
    const result = evaluateCriterion({ context: '$response.body', condition: 'x', type: 'regex' }, long);
    assert.equal(result.passed, false);
    assert.match(result.message ?? '', /longer than 1000000 characters/);
  });

  it('refuses invalid patterns, over-long patterns and nested quantifiers before any request', () => {
    assert.match(refusal({ context: '$url', condition: '(', type: 'regex' }), /not a valid ECMAScript regular expression/);
    assert.match(refusal({ context: '$url', condition: 'a'.repeat(1001), type: 'regex' }), /limit is 1000/);
    assert.match(refusal({ context: '$url', condition: '^(a+)+$', type: 'regex' }), /nested quantifiers/);
    assert.match(refusal({ condition: '^200$', type: 'regex' }), /needs a context/);
  });

  it('detects star height > 1 but allows ordinary patterns', () => {
    for (const bad of ['(a*)*', '(\\d+)+', '((ab)+c)*', '([a-z]+){2,}', '(?:x+y?){1,9}']) assert.notEqual(findNestedQuantifier(bad), -1, bad);
    for (const good of ['^\\d{3}$', '(ab)+', '[(+)]+', '\\(a+\\)+', '(a|b)*c+', '^(RUNNING|PAUSED)$', '(a+){1}']) assert.equal(findNestedQuantifier(good), -1, good);
  });
});

describe('jsonpath criteria (RFC 9535 by default)', () => {
  const jsonpath = (condition: string, context = '$response.body'): Criterion => ({ context, condition, type: 'jsonpath' });

  it('passes when the query selects nodes and fails when it selects none', () => {
    assert.equal(evaluateCriterion(jsonpath("$.tasks[?@.state == 'FAILED']"), connector).passed, true);
    const failed = evaluateCriterion(jsonpath("$.tasks[?@.state == 'PAUSED']"), connector);
    assert.equal(failed.passed, false);
    assert.match(failed.message ?? '', /selected nothing/);
  });

  it("handles the spec's $[?count(@.pets) > 0] against an object by querying [context]", () => {
    assert.equal(evaluateCriterion(jsonpath('$[?count(@.pets) > 0]'), connector).passed, true);
    assert.equal(evaluateCriterion(jsonpath('$[?count(@.pets) > 0]'), respond({ cats: [] })).passed, false);
    assert.equal(evaluateCriterion(jsonpath('$[?length(@.pets) > 0]'), respond({ pets: [] })).passed, false);
    assert.equal(evaluateCriterion(jsonpath('$[?count(@.pets) > 0]'), respond([{ pets: [1] }])).passed, true);
  });

  it("a comparison such as $.connector.state == 'FAILED' is not RFC 9535: it fails, even when the state is FAILED, and the message gives the simple condition", () => {
    const message = refusal(jsonpath("$.connector.state == 'FAILED'"));
    assert.match(message, /is a comparison, not a JSONPath query/);
    assert.match(message, /write the simple condition "\$response\.body#\/connector\/state == 'FAILED'" without type: jsonpath/);
    assert.match(refusal(jsonpath("$['connector'].state != 'RUNNING'", '$response.body#/data')), /"\$response\.body#\/data\/connector\/state != 'RUNNING'"/);
    assert.match(refusal(jsonpath('$.tasks[1].id >= $inputs.min', '$steps.s.outputs.status')), /"\$steps\.s\.outputs\.status#\/tasks\/1\/id >= \$inputs\.min"/);
    // No one-node rewrite for wildcards, a Goessner `.length` or a context that takes no pointer.
    for (const [condition, context] of [['$.tasks[*].id >= 0', '$response.body'], ['$.tasks.length == 2', '$response.body'], ['$ == 200', '$statusCode']] as const) {
      assert.match(refusal(jsonpath(condition, context)), /is a comparison, not a JSONPath query.*write it as a simple condition on the context with a JSON pointer, or as a filter query$/);
    }
  });

  it('guards match() and search() patterns like regex criteria', () => {
    assert.equal(evaluateCriterion(jsonpath("$.tasks[?match(@.state, 'FAIL.*')]"), connector).passed, true);
    assert.match(refusal(jsonpath("$.tasks[?search(@.state, '(A+)+$')]")), /nested quantifiers/);
  });

  it('refuses bad syntax, an unknown version and a missing context', () => {
    assert.match(refusal(jsonpath('$.tasks[?')), /not a valid RFC 9535 JSONPath query: at character/);
    assert.match(refusal(jsonpath('tasks')), /not a valid RFC 9535/);
    assert.match(refusal({ context: '$response.body', condition: '$', type: { type: 'jsonpath', version: 'rfc-1' } }), /jsonpath version 'rfc-1' is not supported/);
    assert.match(refusal({ condition: '$.a', type: 'jsonpath' }), /needs a context/);
    assert.match(refusal(jsonpath('$.a', '$response.bod')), /criterion context: .*at character 11/);
  });
});

describe('jsonpath criteria: draft-goessner-dispatch-jsonpath-00 when the criterion names it', () => {
  const nested = (condition: string): Criterion => ({ context: '$response.body', condition, type: { type: 'jsonpath', version: 'draft-goessner-dispatch-jsonpath-00' } });
  const flattened = (condition: string): Criterion => ({ context: '$response.body', condition, type: 'jsonpath', version: 'draft-goessner-dispatch-jsonpath-00' });

  it('differs from RFC 9535 where the drafts differ (.length, ~ property names)', () => {
    assert.equal(evaluateCriterion(nested('$.tasks.length'), connector).passed, true);
    assert.equal(evaluateCriterion({ context: '$response.body', condition: '$.tasks.length', type: 'jsonpath' }, connector).passed, false);
    assert.match(refusal(flattened('$.tasks.length == 2')), /is a comparison, not a JSONPath query/);
    assert.equal(evaluateCriterion(flattened('$.connector.*~'), connector).passed, true);
    assert.ok(checkCriterion({ context: '$response.body', condition: '$.connector.*~', type: 'jsonpath' }), 'RFC 9535 refuses ~');
  });

  it('selects with ordinary paths in both the nested and the flattened form', () => {
    assert.equal(evaluateCriterion(nested('$.tasks[1].state'), connector).passed, true);
    assert.equal(evaluateCriterion(flattened('$.tasks[5]'), connector).passed, false);
    assert.match(refusal(flattened("$..state == 'x'")), /is a comparison/);
  });

  it('refuses filter and script expressions, which would run code', () => {
    assert.match(refusal(nested('$.tasks[?(@.state === "FAILED")]')), /disabled because they would run code/);
    assert.match(refusal(flattened('$.tasks[(@.length-1)]')), /disabled/);
    assert.match(refusal(nested('tasks')), /starts with '\$'/);
  });
});

describe('xpath criteria over XML bodies', () => {
  const xml = respond(PETS_XML);
  const xpath = (condition: string, version?: string): Criterion =>
    version === undefined ? { context: '$response.body', condition, type: 'xpath' } : { context: '$response.body', condition, type: { type: 'xpath', version } };

  it('XPath 1.0: passes on a non-empty node set, fails on an empty one', () => {
    assert.equal(evaluateCriterion(xpath("/pets/pet[@status='available']/name", 'xpath-10'), xml).passed, true);
    assert.equal(evaluateCriterion(xpath("//pet[@status='pending']", 'xpath-10'), xml).passed, false);
    assert.equal(evaluateCriterion(xpath('count(//pet) = 2', 'xpath-10'), xml).passed, true);
    assert.equal(evaluateCriterion(xpath('count(//pet) = 3', 'xpath-20'), xml).passed, false);
  });

  it('XPath 3.1 (the default): maps, arrow operators and string functions', () => {
    assert.equal(evaluateCriterion(xpath("//pet[@id='2']/name => string() => upper-case() = 'TOM'"), xml).passed, true);
    assert.equal(evaluateCriterion(xpath("map{'a': count(//pet)}?a = 2", 'xpath-31'), xml).passed, true);
    assert.equal(evaluateCriterion(xpath('every $p in //pet satisfies $p/@id > 0', 'xpath-30'), xml).passed, true);
  });

  it('explains results that are neither nodes nor true', () => {
    const result = evaluateCriterion(xpath('count(//pet)'), xml);
    assert.equal(result.passed, false);
    assert.match(result.message ?? '', /the result was 2, not nodes or true/);
  });

  it('fails on a context that is not XML, and refuses entity declarations', () => {
    assert.match(evaluateCriterion(xpath('//pet'), connector).message ?? '', /not XML text/);
    assert.match(evaluateCriterion(xpath('//pet'), respond('<pets><pet>')).message ?? '', /not well-formed XML/);
    assert.match(evaluateCriterion(xpath('//a'), respond('<!DOCTYPE a [<!ENTITY x "y">]><a>&x;</a>')).message ?? '', /declares entities/);
  });

  it('refuses bad syntax and unknown versions', () => {
    assert.match(refusal(xpath('//pet[')), /not valid XPath: XPST0003/);
    assert.match(refusal(xpath('//pet', 'xpath-40')), /xpath version 'xpath-40' is not supported/);
  });
});

describe('criterion type normalization', () => {
  it('refuses unknown types, versions on simple/regex and disagreeing versions', () => {
    assert.match(refusal({ condition: '1 == 1', type: 'sql' as Criterion['type'] }), /type must be one of simple, regex, jsonpath, xpath/);
    assert.match(refusal({ condition: '1 == 1', type: 'simple', version: 'x' }), /version applies to jsonpath and xpath only/);
    assert.match(refusal({ context: '$url', condition: '$', type: { type: 'regex' as 'jsonpath', version: 'x' } }), /type must be 'jsonpath' or 'xpath'/);
    assert.match(refusal({ context: '$url', condition: '$', type: { type: 'xpath', version: 'xpath-30' }, version: 'xpath-10' }), /disagrees/);
    assert.match(refusal({ condition: '' }), /condition is required/);
  });

  it('returns undefined from checkCriterion for good criteria', () => {
    assert.equal(checkCriterion({ condition: '$statusCode == 200' }), undefined);
    assert.equal(checkCriterion({ context: '$response.body', condition: '//a', type: { type: 'xpath', version: 'xpath-30' } }), undefined);
  });
});
