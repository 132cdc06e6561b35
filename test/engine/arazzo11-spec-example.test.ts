// The Arazzo 1.1.0 specification's own example (copied unchanged into test/fixtures/arazzo/) has
// real mistakes; `workflow validate` reports each one, in one pass, with the fix.
// Real parts: child processes.
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { it } from 'node:test';
import { promisify } from 'node:util';
import { cli, repoRoot } from './support/engine.js';

const run = promisify(execFile);

it("validate reports every mistake of the spec's 1.1 example with its fix", async () => {
  const fixtures = join(repoRoot, 'test', 'fixtures');
  const args = [
    'workflow', 'validate', join(fixtures, 'arazzo', 'spec-1.1-example.arazzo.yaml'),
    '--source', `petStoreDescription=${join(fixtures, 'openapi', 'petstore-mini.yaml')}`,
    '--source', `asyncOrderApiDescription=${join(fixtures, 'asyncapi', 'pet-asyncapi.yaml')}`,
    '--output', 'json',
  ];
  const r = await run(process.execPath, [cli, ...args]).then(
    () => assert.fail('the example must not validate'),
    (err: { code: number; stdout: string }) => err,
  );
  assert.equal(r.code, 2);
  const report = JSON.parse(r.stdout) as { valid: boolean; diagnostics: Array<{ pointer: string; message: string; severity: string }> };
  const errors = report.diagnostics.filter((d) => d.severity === 'error');
  const at = (pointer: string): string[] => errors.filter((d) => d.pointer === pointer).map((d) => d.message);
  // 1. a source name spelled two ways (petStoreDescription / petstoreDescription)
  assert.match(at('/workflows/0/steps/0/operationId').join(), /names are case-sensitive: write "petStoreDescription"/);
  assert.match(at('/workflows/0/steps/1/operationPath').join(), /names are case-sensitive: write "petStoreDescription"/);
  // 2. operationPath given an operation id
  assert.match(at('/workflows/0/steps/2/operationPath').join(), /operationPath wants a JSON pointer.*write operationId: \$sourceDescriptions\.asyncOrderApiDescription\.placeOrder/);
  // 3. a receive on confirmOrder, which is only the reply of placeOrder
  assert.match(at('/workflows/0/steps/3/operationPath').join(), /"confirmOrder" is only the reply of operation "placeOrder".*channelPath: '\{\$sourceDescriptions\.asyncOrderApiDescription\.url\}#\/channels\/confirm-order'/);
  // 4. $message.payload.orderId without '#'
  assert.match(at('/workflows/0/steps/3/outputs/orderId').join(), /write \$message\.payload#\/field, not \$message\.payload\.field/);
  // The send to placeOrder (declared action: receive, the application's side) is the right direction: no error there.
  assert.equal(errors.some((d) => /declared action/.test(d.message)), false);
  // Each problem once.
  assert.equal(new Set(errors.map((d) => `${d.pointer} ${d.message}`)).size, errors.length);
  assert.equal(errors.filter((d) => d.pointer === '/workflows/0/steps/0/operationId').length, 1);
});
