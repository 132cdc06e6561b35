// Real parts: none (the code under test, in this process).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { readOffsetsInput } from './offsets-input.js';
import { boundedStdin, checkInputSize } from './offsets-limits.js';
import { confirm } from './confirm.js';
import { OpsError } from '../ops/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'offsetctl-input-'));

async function rejectsWith(p: Promise<unknown>, code: string, words: RegExp): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof OpsError, String(err));
    assert.equal(err.code, code);
    assert.match(err.message, words);
    return true;
  });
}

test('an offsets file is read and parsed as JSON', async () => {
  const file = join(dir, 'ok.json');
  writeFileSync(file, '\ufeff{"offsets": [{"partition": {"filename": "/a"}, "offset": {"position": 0}}]}');
  assert.deepEqual(await readOffsetsInput(file), { offsets: [{ partition: { filename: '/a' }, offset: { position: 0 } }] });
});

test('- reads the offsets from stdin', async () => {
  assert.deepEqual(await readOffsetsInput('-', Readable.from(['[{"partition":', '{"a":1},"offset":null}]'])), [{ partition: { a: 1 }, offset: null }]);
});

test('bad JSON is refused with the file name, line and column', async () => {
  const file = join(dir, 'bad.json');
  writeFileSync(file, '{\n  "offsets": [\n    {"partition": {"a": 1}, "offset": {"p": 1},}\n  ]\n}\n');
  await rejectsWith(readOffsetsInput(file), 'E_OFFSETS_INVALID', new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3:48: not valid JSON`));
});

test('a stray token is reported where it stands, not at the end of the file (V8 gives no position for it)', async () => {
  const file = join(dir, 'token.json');
  writeFileSync(file, '{\n  "offsets": [\n    {"partition": x}\n  ]\n}\n');
  await rejectsWith(readOffsetsInput(file), 'E_OFFSETS_INVALID', /token\.json:3:19: not valid JSON \(unexpected "x"\)/);
  // CSV pasted where JSON was expected: line 1, column 1.
  await rejectsWith(readOffsetsInput('-', Readable.from(['partition,offset\nfoo,1\n'])), 'E_OFFSETS_INVALID', /^<stdin>:1:1: not valid JSON/);
});

test('truncated JSON points at the end of the input', async () => {
  await rejectsWith(readOffsetsInput('-', Readable.from(['{"offsets": [\n'])), 'E_OFFSETS_INVALID', /^<stdin>:2:1: not valid JSON/);
});

test('a missing or empty file is refused, naming the file', async () => {
  await rejectsWith(readOffsetsInput(join(dir, 'nope.json')), 'E_OFFSETS_INVALID', /nope\.json: cannot read the offsets file \(no such file\)/);
  const empty = join(dir, 'empty.json');
  writeFileSync(empty, '  \n');
  await rejectsWith(readOffsetsInput(empty), 'E_OFFSETS_INVALID', /empty\.json: the offsets input is empty/);
});

test('confirm: --yes proceeds without asking', async () => {
  await confirm('Rewind?', { yes: true, tty: false });
});

test('confirm: without a terminal and without --yes it refuses and says to pass --yes', async () => {
  await rejectsWith(confirm('Rewind?', { stdin: Readable.from([]), tty: false }), 'E_NOT_CONFIRMED', /pass --yes/);
});

test('confirm: on a terminal, "y" proceeds and anything else (or end of input) refuses', async () => {
  const sink = new (await import('node:stream')).PassThrough();
  await confirm('Rewind?', { stdin: Readable.from(['y\n']), stdout: sink, tty: true });
  await confirm('Rewind?', { stdin: Readable.from(['YES\n']), stdout: sink, tty: true });
  await rejectsWith(confirm('Rewind?', { stdin: Readable.from(['n\n']), stdout: sink, tty: true }), 'E_NOT_CONFIRMED', /did not answer yes/);
  await rejectsWith(confirm('Rewind?', { stdin: Readable.from(['\n']), stdout: sink, tty: true }), 'E_NOT_CONFIRMED', /nothing was changed/);
  await rejectsWith(confirm('Rewind?', { stdin: Readable.from([]), stdout: sink, tty: true }), 'E_NOT_CONFIRMED', /did not answer yes/);
  assert.match(String(sink.read()), /Rewind\? \[y\/N\] /);
});

test('stdin past the size limit is refused like a file of that size: E_PREFLIGHT, one message, no "cannot read" around it (issue 20, point 15)', async () => {
  const limits = { maxInputBytes: 1000, maxPartitions: 100, chunkSize: 10 };
  const big = Readable.from((function* () {
    for (let i = 0; i < 100; i++) yield Buffer.alloc(100, 0x20);
  })());
  const fromStdin = await readOffsetsInput('-', boundedStdin(limits, big)).then(() => undefined, (e: unknown) => e as OpsError);
  const dir = mkdtempSync(join(tmpdir(), 'offsetctl-big-'));
  const file = join(dir, 'big.json');
  writeFileSync(file, ' '.repeat(10_000));
  const fromFile = await checkInputSize(file, limits).then(() => undefined, (e: unknown) => e as OpsError);
  assert.equal(fromStdin?.code, 'E_PREFLIGHT');
  assert.equal(fromFile?.code, 'E_PREFLIGHT');
  assert.match(fromStdin?.message ?? '', /^<stdin>: the offsets input went past 1,\d{3} bytes \(reading stopped there\), above the limit of 1,000 bytes; nothing was changed/);
  assert.doesNotMatch(fromStdin?.message ?? '', /cannot read|or - for stdin/);
});
