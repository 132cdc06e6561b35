// The command line as operators use it, without a cluster: global flags before or after the
// verb, a closed pipe, completion scripts, colour, usage errors, the version verb.
// Real parts: a SQLite store file, child processes, the CLI in-process.
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { prepareArgs } from '../../src/cli/argv.js';
import { useColor } from '../../src/cli/render/color.js';
import { loadConfig } from '../../src/cli/config-file.js';
import { registerSecret, redactText } from '../../src/http/redact.js';
import { openStore } from '../../src/store/index.js';
import { runInProcess } from '../support/in-process.js';
import { cliPath, repoRoot } from '../support/repo.js';

const CLUSTER = 'http://127.0.0.1:9';

/** A state folder with `count` finished runs, so `runs` has something to list. */
async function stateWithRuns(count: number): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'offsetctl-surface-'));
  const store = openStore(dir);
  for (let i = 0; i < count; i++) {
    // One second apart: run ids carry the second and 4 hex digits, 400 in one second would collide.
    const run = await store.beginRun({ clusterUrl: CLUSTER, connector: `c${i}`, operation: 'reset', workflowFile: 'f', workflowId: 'reset-connector-offsets', inputs: {} }, { now: new Date(Date.now() - i * 1000) });
    await store.finishRun(run.id, { status: 'succeeded' });
  }
  await store.close();
  return dir;
}

test('global flags mean the same before and after the verb', async () => {
  const dir = await stateWithRuns(2);
  const after = await runInProcess(['runs', '--state-dir', dir, '-o', 'json']);
  const before = await runInProcess(['--state-dir', dir, '-o', 'json', 'runs']);
  const mixed = await runInProcess(['--output=json', 'runs', '--state-dir', dir]);
  for (const r of [after, before, mixed]) assert.equal(r.status, 0, r.stderr);
  assert.equal(JSON.parse(after.stdout).length, 2);
  assert.deepEqual(JSON.parse(before.stdout), JSON.parse(after.stdout));
  assert.deepEqual(JSON.parse(mixed.stdout), JSON.parse(after.stdout));
  // --url before the verb reaches the command: a refused connection names that URL.
  const url = await runInProcess(['--url', 'http://127.0.0.1:9', 'connectors']);
  assert.match(url.stderr, /127\.0\.0\.1:9\/connectors/);
  assert.doesNotMatch(url.stderr, /unknown option/);
});

test('prepareArgs moves leading global flags behind the command, before a literal --', () => {
  assert.deepEqual(prepareArgs(['--context', 'prod', '-o', 'json', 'offsets', 'get', 'c']).args, ['offsets', 'get', 'c', '--context', 'prod', '-o', 'json']);
  assert.deepEqual(prepareArgs(['--url=http://x', 'rewind', 'c', '--', '-weird']).args, ['rewind', 'c', '--url=http://x', '--', '-weird']);
  const colour = prepareArgs(['connectors', '--no-color']);
  assert.equal(colour.noColor, true);
  assert.deepEqual(colour.args, ['connectors']);
});

/** Runs the CLI with stdout into a pipe that is closed after the first chunk, like `| head -1`. */
function intoClosedPipe(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cliPath, ...args], { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.once('data', () => child.stdout.destroy());
    child.on('close', (status) => resolve({ status, stderr }));
  });
}

test('output into a closed pipe ends quietly (runs | head -1, --help | head -1)', async () => {
  const dir = await stateWithRuns(400); // more than one pipe buffer of table
  for (const args of [['runs', '--state-dir', dir], ['rewind', '--help'], ['completion', 'bash']]) {
    const r = await intoClosedPipe(args);
    assert.doesNotMatch(r.stderr, /EPIPE|Unhandled|at /, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(r.stderr, '', args.join(' '));
    assert.equal(r.status, 0, args.join(' '));
  }
});

test('completion scripts list the commands, their flags and ask for connector names', async () => {
  const bash = await runInProcess(['completion', 'bash']);
  assert.equal(bash.status, 0, bash.stderr);
  assert.equal(spawnSync('bash', ['-n'], { input: bash.stdout }).status, 0, 'valid bash');
  const dir = mkdtempSync(join(tmpdir(), 'offsetctl-completion-'));
  const script = join(dir, 'offsetctl.bash');
  writeFileSync(script, bash.stdout);
  // Ask bash itself, as the shell does on <TAB>.
  const complete = (line: string): string[] => {
    const words = line.split(' ');
    const r = spawnSync('bash', ['-c', `source ${script}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _offsetctl; printf '%s\\n' "\${COMPREPLY[@]}"`], { encoding: 'utf8' });
    return r.stdout.split('\n').filter(Boolean);
  };
  assert.deepEqual(complete('offsetctl re'), ['rewind', 'reset', 'resume', 'restart', 'replay']);
  assert.deepEqual(complete('offsetctl offsets '), ['get']);
  assert.ok(complete('offsetctl restart c --in').includes('--include-tasks'));
  assert.ok(complete('offsetctl --context prod rewind c --of').includes('--offsets'));
  assert.deepEqual(complete('offsetctl sandbox st'), ['status']);
  assert.match(bash.stdout, /offsetctl __complete connectors/);

  const zsh = await runInProcess(['completion', 'zsh']);
  assert.match(zsh.stdout, /^#compdef offsetctl\nautoload -U \+X bashcompinit/);
  const fish = await runInProcess(['completion', 'fish']);
  assert.match(fish.stdout, /complete -c offsetctl -n '__fish_use_subcommand' -a '[^']*\brewind\b/);
  assert.match(fish.stdout, /complete -c offsetctl -n '__fish_seen_subcommand_from restart' -l include-tasks/);
  assert.match(fish.stdout, /__fish_seen_subcommand_from [^']*\brewind\b[^']*' -a '\(offsetctl __complete connectors/);
  const bad = await runInProcess(['completion', 'tcsh']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /bash, zsh or fish/);
});

test('colour only on a terminal, never with NO_COLOR or --no-color', () => {
  assert.equal(useColor({ isTTY: true }, {}), true);
  assert.equal(useColor({ isTTY: false }, {}), false);
  assert.equal(useColor({ isTTY: true }, { NO_COLOR: '1' }), false);
  assert.equal(useColor({ isTTY: false }, { FORCE_COLOR: '1' }), true);
  assert.equal(useColor({ isTTY: true }, { NO_COLOR: '1', FORCE_COLOR: '1' }), false);
});

test('usage errors are one line and a hint; an unknown option is reported as unknown', async () => {
  const r = await runInProcess(['rewind', 'x', '--to-datetime', 'T']);
  assert.equal(r.status, 2);
  assert.equal(r.stderr, "error: unknown option '--to-datetime'\nhint: see `offsetctl rewind --help`\n");
  const missing = await runInProcess(['rewind', 'x']);
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /^error: required option '--offsets <file\|->' not specified \(or give a position: --to-time, [^\n]*\)\nhint: see `offsetctl rewind --help`\n$/);
  const yaml = await runInProcess(['sandbox', 'status', '--output', 'yaml']);
  assert.equal(yaml.status, 2);
  assert.match(yaml.stderr, /argument 'yaml' is invalid\. Allowed choices are text, json/);
});

test('every --help ends with real examples', async () => {
  for (const args of [[], ['rewind'], ['connectors'], ['offsets', 'get'], ['stop'], ['restart'], ['runs'], ['sandbox', 'status'], ['workflow', 'run'], ['completion'], ['version']]) {
    const r = await runInProcess([...args, '--help']);
    assert.equal(r.status, 0, r.stderr);
    const tail = r.stdout.trimEnd().split('\n').slice(-4).join('\n');
    assert.match(tail, /Examples:\n( {2}offsetctl .+\n?){1,3}|Examples:[\s\S]*offsetctl /, `${args.join(' ')} --help ends with:\n${tail}`);
  }
});

test('offsetctl --help lists the verbs by task, in task order, every verb in a group', async () => {
  const groups: Array<[string, string[]]> = [
    ['Inspect:', ['connectors', 'offsets']],
    ['Change offsets:', ['rewind', 'reset', 'rollback', 'apply', 'changes']],
    ['Read rows again (no offset changes):', ['replay']],
    ['Across clusters:', ['move', 'copy', 'export', 'import']],
    ['History:', ['runs', 'snapshots', 'audit']],
    ['Team store:', ['store', 'policy']],
    ['Connector lifecycle:', ['stop', 'pause', 'resume', 'restart']],
    ['Workflows:', ['workflow']],
    ['Local cluster:', ['sandbox']],
    ['Console and settings:', ['ui', 'config', 'completion', 'version', 'help']],
  ];
  for (const args of [['--help'], ['help']]) {
    const r = await runInProcess(args);
    assert.equal(r.status, 0, r.stderr);
    // Each heading, then the verbs listed under it (a verb's description may wrap onto more lines).
    const listed = new Map<string, string[]>();
    let heading: string | undefined;
    for (const line of r.stdout.split('\n')) {
      if (/^\S.*:$/.test(line)) heading = line;
      else if (heading && /^ {2}[a-z]/.test(line)) listed.set(heading, [...(listed.get(heading) ?? []), line.trim().split(/\s+/)[0]!]);
      else if (line === '') heading = undefined;
    }
    const commandGroups = [...listed.keys()].filter((h) => h !== 'Options:' && h !== 'Examples:');
    assert.deepEqual(commandGroups, groups.map(([h]) => h), r.stdout);
    for (const [h, verbs] of groups) assert.deepEqual(listed.get(h), verbs, `${h}\n${r.stdout}`);
    assert.doesNotMatch(r.stdout, /^Commands:$/m, 'a verb without a group');
  }
  // A command's own help keeps its plain list of subcommands.
  const runs = await runInProcess(['runs', '--help']);
  assert.match(runs.stdout, /^Commands:\n {2}show /m);
});

test('a refusal with -o json prints a JSON error object on stdout and the message on stderr', async () => {
  const r = await runInProcess(['connectors', '-o', 'json']);
  const parsed = JSON.parse(r.stdout) as { error: { code: string; message: string; exitStatus: number } };
  assert.equal(parsed.error.code, 'E_CONFIG');
  assert.equal(parsed.error.exitStatus, r.status);
  assert.match(r.stderr, /no Kafka Connect URL/);
  const usage = await runInProcess(['-o', 'json', 'runs', '--bogus']);
  assert.equal(usage.status, 2);
  assert.deepEqual(JSON.parse(usage.stdout), { error: { code: 'E_USAGE', message: "unknown option '--bogus'", exitStatus: 2 } });
});

test('--version and `version -o json` name offsetctl, Node and the sandbox Kafka', async () => {
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string };
  assert.equal((await runInProcess(['--version'])).stdout, `${pkg.version}\n`);
  const v = JSON.parse((await runInProcess(['version', '-o', 'json'])).stdout) as Record<string, string>;
  assert.equal(v['offsetctl'], pkg.version);
  assert.equal(v['node'], process.versions.node);
  assert.match(v['sandboxKafka'] ?? '', /^\d+\.\d+\.\d+$/);
  assert.match(v['sqlite'] ?? '', /^(node:sqlite|better-sqlite3)$/);
});

test("the config example in docs/connections.md is what the tool reads (kebab-case keys)", async () => {
  const doc = readFileSync(join(repoRoot, 'docs', 'connections.md'), 'utf8');
  const yaml = /## The config file[\s\S]*?```yaml\n([\s\S]*?)```/.exec(doc)?.[1];
  assert.ok(yaml);
  const file = join(mkdtempSync(join(tmpdir(), 'offsetctl-docs-')), 'config.yaml');
  writeFileSync(file, yaml);
  const config = await loadConfig(file);
  assert.equal(config.currentContext, 'prod');
  assert.equal(config.contexts['prod']?.passwordEnv, 'CONNECT_PASSWORD');
  // The camelCase spelling gets the kebab-case name to use.
  writeFileSync(file, yaml.replace('password-env', 'passwordEnv'));
  await assert.rejects(loadConfig(file), /passwordEnv: unknown field \(did you mean password-env\?\)/);
});

test('a password that is a plain word is masked as a word, not inside other words', async () => {
  registerSecret('secret');
  assert.equal(redactText('stores references to secrets only; the secret is secret'), 'stores references to secrets only; the *** is ***');
  registerSecret('s3cr3t!x');
  assert.equal(redactText('auth=s3cr3t!xyz'), 'auth=***yz');
  const r = await runInProcess(['connectors', '--url', 'http://127.0.0.1:9', '--password', 'secret']);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /a value given on the command line is kept in shell history/);
  const c = await runInProcess(['config', 'set-context', 'x', '--url', 'http://127.0.0.1:9', '--password', 'secret'], { env: { OFFSETCTL_CONFIG: join(mkdtempSync(join(tmpdir(), 'offsetctl-cfg-')), 'c.yaml') } });
  assert.match(c.stderr, /stores references to secrets only/);
});
