// The bad-input catalog (docs/bad-input.md): every row is run through the real CLI against a
// sandbox connector and must exit 2 with a message naming the problem, while the connector keeps
// its offsets and its RUNNING state. Keep this table and the doc's in step.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../support/cli.js';
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
    const r = await runCli([...row.args(sink), ...withUrl, '--state-dir', state], { ...(row.env ? { env: row.env } : {}), ...(row.input ? { stdin: row.input } : {}) });
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
  const r = await runCli(['workflow', 'validate', file('bomb.arazzo.yaml', bomb)]);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /alias|E_DOCUMENT_PARSE/i);
});

test('bad input — a workflow document of 10 000 steps is validated or refused in bounded time, no crash', async () => {
  const steps = Array.from({ length: 10_000 }, (_v, i) => `      - stepId: s${i}\n        operationPath: '{$sourceDescriptions.api.url}#/paths/~1x/get'\n`).join('');
  const doc = `arazzo: 1.0.1\ninfo: {title: t, version: '1'}\nsourceDescriptions:\n  - {name: api, url: ./missing-api.yaml, type: openapi}\nworkflows:\n  - workflowId: w\n    steps:\n${steps}`;
  const r = await runCli(['workflow', 'validate', file('big.arazzo.yaml', doc)]);
  assert.ok(r.status === 0 || r.status === 2, `exit ${r.status}: ${r.stderr.slice(0, 500)}`);
  assert.doesNotMatch(r.stderr, /^\s+at .+:\d+:\d+\)?$/m);
});
