// First-contact fixes of the changing commands (issue 13's list): warnings on stderr and in the
// JSON outcome, a rollback dry run that shows the state the connector is really in, and a
// connection refused before anything changed exiting 2.
// Real parts: the sandbox's Kafka broker and Connect cluster, a loopback HTTP server, a SQLite store file, the CLI in-process.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { type ConnectFixture, tempDir, connectFixture } from '../support/connect.js';
import { runInProcess } from '../support/in-process.js';

let cluster: ConnectFixture;
let source: { name: string; file: string };
let stateDir: string;

before(async () => {
  cluster = await connectFixture();
  source = await cluster.createSource(3);
  stateDir = tempDir('offsetctl-state-first-contact-');
});
after(async () => cluster?.cleanup());

test('a pre-flight warning goes to stderr in text mode and into "warnings" with --output json', async () => {
  // Another file's partition: Connect keeps it, but it does not change what the connector reads.
  const target = JSON.stringify({ offsets: [{ partition: { filename: join(cluster.dir, 'not-read.txt') }, offset: { position: 1 } }] });
  const text = await runInProcess(['rewind', source.name, '--offsets', '-', '--dry-run', '--url', cluster.url, '--state-dir', stateDir], { stdin: target });
  assert.equal(text.status, 0, text.stderr);
  assert.match(text.stderr, /^warning: offsets\[0\]\.partition\.filename .* is not the file the connector reads now/m);
  assert.doesNotMatch(text.stdout, /warning/);
  const json = await runInProcess(['rewind', source.name, '--offsets', '-', '--dry-run', '--output', 'json', '--url', cluster.url, '--state-dir', stateDir], { stdin: target });
  assert.equal(json.status, 0, json.stderr);
  const outcome = JSON.parse(json.stdout) as { status: string; warnings: string[] };
  assert.equal(outcome.status, 'dry-run');
  assert.equal(outcome.warnings.length, 1);
  assert.match(outcome.warnings[0] ?? '', /is not the file the connector reads now/);
});

test('rollback --dry-run of a STOPPED connector shows STOPPED → RUNNING, not the snapshot\'s state twice', async () => {
  const target = JSON.stringify({ offsets: [{ partition: { filename: source.file }, offset: { position: 0 } }] });
  const rewind = await runInProcess(['rewind', source.name, '--offsets', '-', '--yes', '--leave-stopped', '--url', cluster.url, '--state-dir', stateDir], { stdin: target });
  assert.equal(rewind.status, 0, rewind.stderr);
  assert.equal((await cluster.status(source.name)).connector.state, 'STOPPED');
  const dry = await runInProcess(['rollback', source.name, '--dry-run', '--url', cluster.url, '--state-dir', stateDir]);
  assert.equal(dry.status, 0, dry.stderr);
  assert.match(dry.stdout, /\(source, STOPPED\) .*state STOPPED → RUNNING\)/);
  assert.doesNotMatch(dry.stdout, /RUNNING → RUNNING/);
  const done = await runInProcess(['rollback', source.name, '--yes', '--url', cluster.url, '--state-dir', stateDir]);
  assert.equal(done.status, 0, done.stderr);
  await cluster.waitRunning(source.name);
});

test('a connection refused before anything changed exits 2', async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  for (const args of [['reset', 'any', '--yes'], ['rewind', 'any', '--offsets', '-', '--yes'], ['connectors']]) {
    const r = await runInProcess([...args, '--url', `http://127.0.0.1:${port}`, '--state-dir', stateDir], { stdin: '[{"partition": {"a": 1}, "offset": null}]' });
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /E_UNREACHABLE.*connection refused.*nothing was changed/);
  }
});
