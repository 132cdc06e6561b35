// stop | pause | resume | restart on the sandbox, the first-contact fixes that need a real
// worker, and global flags in front of the verb against a real cluster.
// Real parts: the sandbox's Kafka broker and Connect cluster, a real PostgreSQL, a SQLite store file, child processes, spawns the CLI.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { uniqueName } from '../../src/sandbox/index.js';
import { runCli } from '../support/cli.js';
import { numberedLines, sandboxRest, startPipeline, tempDir } from '../support/connect.js';
import { waitForLines } from '../support/files.js';
import { cliPath } from '../support/repo.js';
import { getSandbox } from '../support/sandbox.js';

test('stop, resume, pause and restart wait for the state Kafka Connect reports', { timeout: 300_000 }, async (t) => {
  const { connect } = await getSandbox();
  const url = connect[0] ?? '';
  const rest = await sandboxRest();
  const lines = numberedLines('life', 3);
  const pipeline = await startPipeline(rest, 'life', lines);
  t.after(() => pipeline.remove());
  assert.deepEqual(await waitForLines(pipeline.outputFile, lines.length), lines);

  // Global flag before the verb.
  const stop = await runCli(['--url', url, 'stop', pipeline.source]);
  assert.equal(stop.status, 0, stop.stderr);
  assert.match(stop.stdout, new RegExp(`^connector ${pipeline.source}: RUNNING → STOPPED in \\d+\\.\\d s \\(\\d+ status reads?\\)\\n$`));
  const stopped = await rest.status(pipeline.source);
  assert.equal(stopped.connector.state, 'STOPPED');
  assert.deepEqual(stopped.tasks, []);

  const again = await runCli(['stop', pipeline.source, '--url', url]);
  assert.equal(again.status, 0, again.stderr);
  assert.match(again.stdout, /is already STOPPED; nothing sent/);

  const resume = await runCli(['resume', pipeline.source, '--url', url, '-o', 'json']);
  assert.equal(resume.status, 0, resume.stderr);
  const resumed = JSON.parse(resume.stdout) as { before: string; state: string; tasks: Array<{ state: string }>; attempts: number; elapsedMs: number };
  assert.equal(resumed.before, 'STOPPED');
  assert.equal(resumed.state, 'RUNNING');
  assert.ok(resumed.tasks.length > 0 && resumed.tasks.every((x) => x.state === 'RUNNING'), resume.stdout);
  assert.ok(resumed.attempts >= 1);
  const running = await rest.status(pipeline.source);
  assert.ok(running.connector.state === 'RUNNING' && running.tasks.every((x) => x.state === 'RUNNING'));

  const pause = await runCli(['-o', 'json', 'pause', pipeline.sink, '--url', url]);
  assert.equal(pause.status, 0, pause.stderr);
  const paused = await rest.status(pipeline.sink);
  assert.equal(paused.connector.state, 'PAUSED');
  assert.ok(paused.tasks.every((x) => x.state === 'PAUSED'));
  assert.equal((await runCli(['resume', pipeline.sink, '--url', url])).status, 0);

  const restart = await runCli(['restart', pipeline.sink, '--include-tasks', '--url', url]);
  assert.equal(restart.status, 0, restart.stderr);
  assert.match(restart.stdout, /RUNNING → RUNNING \(tasks 0:RUNNING\)/);

  const unknown = await runCli(['stop', 'no-such-connector-x', '--url', url]);
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /not found/);
});

test('restart --include-tasks --only-failed brings a failed task back, and says so when it fails again', { timeout: 300_000 }, async (t) => {
  const { connect } = await getSandbox();
  const url = connect[0] ?? '';
  const rest = await sandboxRest();
  const dir = tempDir('life-failed');
  const missing = join(dir, 'not-yet');
  const name = uniqueName('it-life-failing-sink');
  // A FileStreamSink whose folder does not exist: its task fails on start.
  await rest.createConnector(name, {
    'connector.class': 'org.apache.kafka.connect.file.FileStreamSinkConnector',
    'tasks.max': '1',
    file: join(missing, 'out.txt'),
    topics: uniqueName('it-life-topic'),
  });
  t.after(() => rest.deleteConnector(name));
  await rest.waitForStatus(name, 'its task failed', (s) => s.tasks.some((x) => x.state === 'FAILED')).catch(() => undefined);
  const failed = await rest.status(name);
  assert.equal(failed.tasks[0]?.state, 'FAILED');

  const again = await runCli(['restart', name, '--include-tasks', '--only-failed', '--url', url, '--timeout-s', '60']);
  assert.equal(again.status, 1, `${again.stdout}\n${again.stderr}`);
  assert.match(again.stderr, /failed again after the restart: task 0 is FAILED/);

  mkdirSync(missing);
  writeFileSync(join(missing, 'out.txt'), '');
  const fixed = await runCli(['restart', name, '--include-tasks', '--only-failed', '--url', url]);
  assert.equal(fixed.status, 0, `${fixed.stdout}\n${fixed.stderr}`);
  const now = await rest.status(name);
  assert.equal(now.tasks[0]?.state, 'RUNNING');
});

test('first contact: https to a plain-HTTP worker, colour rules of the diff, sandbox logs of an unknown process', { timeout: 300_000 }, async (t) => {
  const { connect } = await getSandbox();
  const url = connect[0] ?? '';
  const https = await runCli(['connectors', '--url', url.replace('http://', 'https://')]);
  assert.notEqual(https.status, 0);
  assert.match(https.stderr, /this server speaks plain HTTP, not HTTPS: use an http:\/\/ URL/);
  assert.doesNotMatch(https.stderr, /--ca/);

  const rest = await sandboxRest();
  const lines = numberedLines('colour', 2);
  const pipeline = await startPipeline(rest, 'colour', lines, { withSink: false });
  t.after(() => pipeline.remove());
  const file = join(tempDir('colour'), 'offsets.json');
  writeFileSync(file, JSON.stringify({ offsets: [{ partition: { filename: pipeline.inputFile }, offset: { position: 0 } }] }));
  const dryRun = (env: Record<string, string>, extra: string[] = []) => runCli(['rewind', pipeline.source, '--offsets', file, '--dry-run', '--url', url, ...extra], { env });
  const forced = await dryRun({ FORCE_COLOR: '1' });
  assert.equal(forced.status, 0, forced.stderr);
  assert.match(forced.stdout, /\x1b\[/, 'FORCE_COLOR colours the diff');
  for (const [env, extra] of [[{ FORCE_COLOR: '1', NO_COLOR: '1' }, []], [{ FORCE_COLOR: '1' }, ['--no-color']], [{}, []]] as const) {
    const plain = await dryRun(env, [...extra]);
    assert.equal(plain.status, 0, plain.stderr);
    assert.doesNotMatch(plain.stdout, /\x1b\[/, `no escape codes with ${JSON.stringify(env)} ${extra.join(' ')}`);
    assert.match(plain.stdout, /position/);
  }

  // `sandbox logs worker-1 | head -1`: the reader goes away after the first chunk.
  const piped = await new Promise<{ status: number | null; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [cliPath, 'sandbox', 'logs', 'worker-1', '-n', '2000'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.once('data', () => child.stdout.destroy());
    child.on('close', (status) => resolve({ status, stderr }));
  });
  assert.equal(piped.stderr, '');
  assert.equal(piped.status, 0);

  const logs = await runCli(['sandbox', 'logs', 'nope']);
  assert.equal(logs.status, 2);
  assert.match(logs.stderr, /no sandbox process "nope": the processes are broker, worker-1/);
  assert.doesNotMatch(logs.stderr, /sandbox up/);
});

test('stop and resume by bob on the team store are in the audit under bob: state before → after, refusals too', { timeout: 300_000 }, async (t) => {
  const { newDatabase, addOperator } = await import('../support/postgres.js');
  const { connect } = await getSandbox();
  const rest = await sandboxRest();
  const pipeline = await startPipeline(rest, 'life-audit', numberedLines('life-audit', 2), { withSink: false });
  t.after(() => pipeline.remove());
  const db = await newDatabase('lifeaudit');
  const bob = await addOperator(db, 'bob');
  const bobCli = (args: string[]) => runCli([...args, '--url', connect[1] ?? connect[0] ?? '', '--store', db.urlFor(bob), '--state-dir', tempDir('offsetctl-bob-')], {
    env: { OFFSETCTL_STORE: undefined, PGPASSWORD: bob.password },
  });
  const stop = await bobCli(['stop', pipeline.source]);
  assert.equal(stop.status, 0, stop.stderr);
  const resume = await bobCli(['resume', pipeline.source]);
  assert.equal(resume.status, 0, resume.stderr);
  assert.equal((await bobCli(['pause', 'no-such-connector-y'])).status, 2);
  // Alice reads the team's audit: three entries, each under bob's database login.
  const audit = await runCli(['audit', '-o', 'json', '--store', db.url, '--url', connect[0] ?? ''], { env: { OFFSETCTL_STORE: undefined, PGPASSWORD: db.owner.password } });
  assert.equal(audit.status, 0, audit.stderr);
  const entries = audit.stdout.trim().split('\n').map((l) => JSON.parse(l) as { action: string; outcome: string; connector?: string; message?: string; clusterKey?: string; actor: { user: string; dbUser?: string } });
  const mine = entries.filter((e) => ['stop', 'resume', 'pause'].includes(e.action));
  assert.deepEqual(mine.map((e) => [e.action, e.outcome, e.connector]), [
    ['stop', 'done', pipeline.source], ['resume', 'done', pipeline.source], ['pause', 'refused', 'no-such-connector-y'],
  ]);
  assert.ok(mine.every((e) => e.actor.dbUser === bob.user), JSON.stringify(mine.map((e) => e.actor)));
  assert.match(mine[0]!.message ?? '', /^RUNNING → STOPPED/);
  assert.match(mine[1]!.message ?? '', /^STOPPED → RUNNING/);
  assert.match(mine[0]!.clusterKey ?? '', /^kafka:/);
  // And the chain they were written into verifies.
  const verify = await runCli(['audit', 'verify', '--store', db.url, '--url', connect[0] ?? ''], { env: { OFFSETCTL_STORE: undefined, PGPASSWORD: db.owner.password } });
  assert.equal(verify.status, 0, verify.stdout + verify.stderr);
  assert.match(verify.stdout, /verifies: 3 chained entries/);
});
