// The bad-input catalog (docs/bad-input.md): every row is run through the real CLI against a
// sandbox connector and must exit 2 with a message naming the problem, while the connector keeps
// its offsets and its RUNNING state. Keep this table and the doc's in step.
// Real parts: the sandbox's Kafka broker and Connect cluster, a SQLite store file, the CLI in-process.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInProcess } from '../support/in-process.js';
import { type ConnectFixture, connectFixture, sortedOffsets, tempDir } from '../support/connect.js';

let cluster: ConnectFixture;
let source: { name: string; file: string };
let sink: string;
let files: string;

before(async () => {
  cluster = await connectFixture();
  source = await cluster.createSource(3);
  files = tempDir('offsetctl-badinput-');
  sink = source.name; // offsets shape rows use the source connector; sink-shaped rows are wrong for it
});
after(async () => cluster?.cleanup());

interface Row { name: string; args: (c: string) => string[]; input?: string; env?: Record<string, string>; message: RegExp; setup?: () => void }

const file = (name: string, text: string | Buffer): string => {
  const path = join(files, name);
  writeFileSync(path, text);
  return path;
};
const rewind = (offsetsFile: string) => (c: string) => ['rewind', c, '--offsets', offsetsFile, '--yes'];
const entry = (offset: unknown) => JSON.stringify({ offsets: [{ partition: { filename: '/tmp/x.txt' }, offset }] });

const rows: Row[] = [
  { name: 'offsets: not JSON', args: (c) => rewind(file('not-json.json', '{"offsets": [}'))(c), message: /not-json\.json:1:\d+: not valid JSON/ },
  { name: 'offsets: empty file', args: (c) => rewind(file('empty.json', ''))(c), message: /the offsets input is empty/ },
  { name: 'offsets: huge (30 MB)', args: (c) => rewind(file('huge.json', `{"offsets": [${'{"partition":{"filename":"/tmp/a"},"offset":{"position":1}},'.repeat(500_000)}null]}`))(c), message: /offsets/ },
  { name: 'offsets: deep nesting', args: (c) => rewind(file('deep.json', `{"offsets": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`))(c), message: /offsets/ },
  { name: 'offsets: sink shape for a source connector', args: (c) => rewind(file('sink-shape.json', JSON.stringify({ offsets: [{ partition: { kafka_topic: 't', kafka_partition: 0 }, offset: { kafka_offset: 1 } }] })))(c), message: /partition|source/ },
  { name: 'offsets: duplicate partitions', args: (c) => rewind(file('dup.json', JSON.stringify({ offsets: [{ partition: { filename: '/tmp/d' }, offset: { position: 1 } }, { partition: { filename: '/tmp/d' }, offset: { position: 2 } }] })))(c), message: /same partition as offsets\[0\]/ },
  { name: 'offsets: NaN', args: (c) => rewind(file('nan.json', '{"offsets": [{"partition": {"filename": "/tmp/x"}, "offset": {"position": NaN}}]}'))(c), message: /not valid JSON/ },
  { name: 'offsets: negative position', args: (c) => rewind(file('neg.json', entry({ position: -1 })))(c), message: /position|negative/i },
  { name: 'offsets: float position', args: (c) => rewind(file('float.json', entry({ position: 1.5 })))(c), message: /position|whole|integer/i },
  { name: 'offsets: string for a number', args: (c) => rewind(file('string.json', entry({ position: '7' })))(c), message: /position|number/i },
  { name: 'offsets: unreadable file', args: (c) => rewind(join(files, 'missing.json'))(c), message: /no such file/ },
  { name: 'offsets: a folder', args: (c) => rewind(files)(c), message: /it is a folder/ },
  { name: 'name: unknown connector', args: () => ['reset', 'no-such-connector-bad-input', '--yes'], message: /not found/ },
  { name: 'name: with /', args: () => ['reset', 'a/b', '--yes'], message: /cannot be addressed through the Kafka Connect REST API/ },
  { name: 'name: ..', args: () => ['reset', '..', '--yes'], message: /cannot be addressed through the Kafka Connect REST API/ },
  { name: 'name: spaces', args: () => ['reset', 'my connector', '--yes'], message: /not found/ },
  { name: 'name: unicode', args: () => ['reset', 'conn\u00e9ct\u{1F600}', '--yes'], message: /not found/ },
  { name: 'flags: --leave-stopped with --resume', args: (c) => ['reset', c, '--yes', '--leave-stopped', '--resume'], message: /contradict/ },
  { name: 'flags: literal --password', args: (c) => ['reset', c, '--yes', '--user', 'u', '--password', 'hunter2'], message: /--password is not accepted/ },
  { name: 'flags: token and Basic together', args: (c) => ['reset', c, '--yes', '--user', 'u', '--password-env', 'P', '--token-env', 'T'], env: { P: 'p', T: 't' }, message: /either Basic auth .* or a bearer token/ },
  { name: 'flags: unreadable password file', args: (c) => ['reset', c, '--yes', '--user', 'u', '--password-file', join(files, 'no-password')], message: /cannot read the password file/ },
  { name: 'flags: --timeout not a number', args: (c) => ['reset', c, '--yes', '--timeout', 'soon'], message: /--timeout/ },
  { name: 'flags: no --yes without a terminal', args: (c) => ['reset', c], message: /not confirmed/ },
  { name: 'env: URL with credentials', args: (c) => ['reset', c, '--yes'], env: { OFFSETCTL_URL: 'http://u:secret@127.0.0.1:1' }, message: /credentials in the URL are not accepted/ },
];

for (const row of rows) {
  test(`bad input — ${row.name}: exit 2, a message, the cluster unchanged`, async (t) => {
    const before = sortedOffsets(await cluster.offsets(source.name));
    const state = tempDir('offsetctl-badinput-state-');
    const withUrl = row.env?.OFFSETCTL_URL ? [] : ['--url', cluster.url];
    const r = await runInProcess([...row.args(sink), ...withUrl, '--state-dir', state], { ...(row.env ? { env: row.env } : {}), ...(row.input ? { stdin: row.input } : {}) });
    assert.equal(r.status, 2, `${r.stdout}\n${r.stderr}`);
    assert.match(r.stderr, row.message);
    t.diagnostic(`message: ${r.stderr.trim().split('\n').at(-1)?.slice(0, 300)}`);
    assert.doesNotMatch(r.stderr, /^\s+at .+:\d+:\d+\)?$/m, 'no stack trace');
    assert.ok(r.stderr.length < 4000, 'the message stays readable');
    assert.deepEqual(sortedOffsets(await cluster.offsets(source.name)), before, 'offsets unchanged');
    assert.equal((await cluster.status(source.name)).connector.state, 'RUNNING');
  });
}

test('bad input — a workflow document with an alias bomb is refused by `workflow validate` (exit 2)', async () => {
  let bomb = 'arazzo: 1.0.1\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n';
  for (let i = 1; i < 12; i++) bomb += `a${i}: &a${i} [${Array.from({ length: 10 }, () => `*a${i - 1}`).join(', ')}]\n`;
  const r = await runInProcess(['workflow', 'validate', file('bomb.arazzo.yaml', bomb)]);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /alias|E_DOCUMENT_PARSE/i);
});

test('bad input — a workflow document of 10 000 steps is validated or refused in bounded time, no crash', async () => {
  const steps = Array.from({ length: 10_000 }, (_v, i) => `      - stepId: s${i}\n        operationPath: '{$sourceDescriptions.api.url}#/paths/~1x/get'\n`).join('');
  const doc = `arazzo: 1.0.1\ninfo: {title: t, version: '1'}\nsourceDescriptions:\n  - {name: api, url: ./missing-api.yaml, type: openapi}\nworkflows:\n  - workflowId: w\n    steps:\n${steps}`;
  const r = await runInProcess(['workflow', 'validate', file('big.arazzo.yaml', doc)]);
  assert.ok(r.status === 0 || r.status === 2, `exit ${r.status}: ${r.stderr.slice(0, 500)}`);
  assert.doesNotMatch(r.stderr, /^\s+at .+:\d+:\d+\)?$/m);
});

// Workflow documents that would change the cluster if they ran: a step that stops the sandbox's
// connector. Each is refused before any request (exit 2, the connector still RUNNING with its
// offsets), in bounded time and memory (a 512 MB heap: more would crash the CLI, not exit 2);
// the OpenAPI description and inputs are files of the test's own.
const stopApi = (parameters: Record<string, unknown>, first = '#/components/parameters/p0') => JSON.stringify({
  openapi: '3.0.3', info: { title: 'connect', version: '1' },
  paths: { '/connectors/{connector}/stop': { put: { operationId: 'stopConnector', parameters: [{ $ref: first }], responses: { 202: { description: 'stopped' } } } } },
  components: { parameters },
});
const connectorParam = { name: 'connector', in: 'path', required: true, schema: { type: 'string' } };
const stopWorkflow = (api: string, extra: { inputs?: unknown; components?: unknown } = {}) => JSON.stringify({
  arazzo: '1.0.1', info: { title: 'stop', version: '1' },
  sourceDescriptions: [{ name: 'connect', url: `./${api}`, type: 'openapi' }],
  workflows: [{ workflowId: 'stop', inputs: extra.inputs ?? { type: 'object', properties: { connectorName: { type: 'string' } } },
    steps: [{ stepId: 'stop', operationId: 'stopConnector', parameters: [{ name: 'connector', in: 'path', value: '$inputs.connectorName' }], successCriteria: [{ condition: '$statusCode == 202' }] }] }],
  ...(extra.components ? { components: extra.components } : {}),
});
const chained = (n: number, prefix: string, at: string, end: unknown) => {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) out[`${prefix}${i}`] = { $ref: `${at}/${prefix}${i + 1}` };
  out[`${prefix}${n}`] = end;
  return out;
};

interface DocRow { name: string; setup: () => { doc: string; args?: string[] }; message: RegExp }
const docRows: DocRow[] = [
  {
    name: 'OpenAPI description: 10 000 chained $refs ending nowhere',
    setup: () => {
      file('chain-api.json', stopApi(chained(10_000, 'p', '#/components/parameters', { $ref: '#/components/parameters/missing' })));
      return { doc: file('chain.arazzo.json', stopWorkflow('chain-api.json')) };
    },
    message: /\$ref "#\/components\/parameters\/missing" points at nothing; fix the description/,
  },
  {
    name: 'OpenAPI description: a $ref cycle',
    setup: () => {
      file('cycle-api.json', stopApi({ a: { $ref: '#/components/parameters/b' }, b: { $ref: '#/components/parameters/a' } }, '#/components/parameters/a'));
      return { doc: file('cycle.arazzo.json', stopWorkflow('cycle-api.json')) };
    },
    message: /refers to itself in a loop; fix the description/,
  },
  {
    name: 'inputs schema: 10 000 chained $refs',
    setup: () => {
      file('ok-api.json', stopApi({ p0: connectorParam }));
      return { doc: file('inputs-chain.arazzo.json', stopWorkflow('ok-api.json', { inputs: { $ref: '#/components/inputs/d0' }, components: { inputs: chained(10_000, 'd', '#/components/inputs', { type: 'object', properties: { connectorName: { type: 'string' } } }) } })) };
    },
    message: /starts a chain of more than 64 schemas that only refer to the next one; point it at the schema itself/,
  },
  {
    name: 'inputs schema: a $ref cycle',
    setup: () => {
      file('ok-api.json', stopApi({ p0: connectorParam }));
      return { doc: file('inputs-cycle.arazzo.json', stopWorkflow('ok-api.json', { inputs: { $ref: '#/components/inputs/a' }, components: { inputs: { a: { $ref: '#/components/inputs/b' }, b: { $ref: '#/components/inputs/a' } } } })) };
    },
    message: /refers to itself in a loop \(#\/components\/inputs\/a → #\/components\/inputs\/b → #\/components\/inputs\/a\)/,
  },
  {
    name: 'inputs file of 50 MB (one input of the wrong type)',
    setup: () => {
      file('ok-api.json', stopApi({ p0: connectorParam }));
      const inputs = file('huge-inputs.json', `{"connectorName": 7, "notes": "${'x'.repeat(50 * 1024 * 1024)}"}`);
      // The file alone names the inputs (an --input would win over it).
      return { doc: file('ok.arazzo.json', stopWorkflow('ok-api.json')), args: ['--inputs', inputs] };
    },
    message: /input "connectorName": must be string/,
  },
  {
    name: '10 000 steps, one of them naming an operation that does not exist',
    setup: () => {
      file('ok-api.json', stopApi({ p0: connectorParam }));
      const doc = JSON.parse(stopWorkflow('ok-api.json')) as { workflows: Array<{ steps: unknown[] }> };
      const step = doc.workflows[0]!.steps[0] as Record<string, unknown>;
      doc.workflows[0]!.steps = [...Array.from({ length: 9_999 }, (_v, i) => ({ ...step, stepId: `stop${i}` })), { ...step, stepId: 'last', operationId: 'noSuchOperation' }];
      return { doc: file('steps.arazzo.json', JSON.stringify(doc)) };
    },
    message: /noSuchOperation/,
  },
];

for (const row of docRows) {
  test(`bad input — workflow document, ${row.name}: exit 2, a message, bounded, the cluster unchanged`, { timeout: 120_000 }, async (t) => {
    const before = sortedOffsets(await cluster.offsets(source.name));
    const { doc, args = [] } = row.setup();
    const started = Date.now();
    const inputs = args.includes('--inputs') ? [] : ['--input', `connectorName=${source.name}`];
    const r = await runInProcess(['workflow', 'run', doc, '--server', cluster.url, ...inputs, ...args, '--state-dir', tempDir('offsetctl-badinput-state-')], { env: { NODE_OPTIONS: '--max-old-space-size=512' } });
    const ms = Date.now() - started;
    t.diagnostic(`exit ${r.status} in ${ms} ms: ${r.stderr.trim().split('\n')[0]?.slice(0, 300)}`);
    assert.equal(r.status, 2, `${r.stdout.slice(0, 2000)}\n${r.stderr.slice(0, 2000)}`);
    assert.match(r.stderr, row.message);
    assert.doesNotMatch(r.stderr, /^\s+at .+:\d+:\d+\)?$/m, 'no stack trace');
    assert.doesNotMatch(r.stderr, /Maximum call stack/, 'no stack overflow');
    assert.ok(ms < 60_000, `answered in ${ms} ms`);
    assert.deepEqual(sortedOffsets(await cluster.offsets(source.name)), before, 'offsets unchanged');
    assert.equal((await cluster.status(source.name)).connector.state, 'RUNNING', 'the stop step never ran');
  });
}
