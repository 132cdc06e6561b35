// `workflow lint` (rule ids, severities, --format json, Kafka Connect rules) and `workflow upgrade`
// (1.0.x → 1.1.0 with comments, order and formatting kept; changed meanings pinned or listed).
// Real parts: child processes.
import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { upgradeText } from '../../src/cli/commands/workflow-upgrade.js';
import { cli, repoRoot } from './support/engine.js';

const exec = promisify(execFile);
const connectApi = join(repoRoot, 'openapi', 'kafka-connect.yaml');

async function offsetctl(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await exec(process.execPath, [cli, ...args]);
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

function file(name: string, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'offsetctl-lint-'));
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** The seeds' pattern: stop, then PATCH the offsets at once (plus the other Connect traps). */
const SEED_LIKE = `arazzo: 1.0.1
info: {title: seed-like, version: 1.0.0}
sourceDescriptions:
  - {name: connect, url: ${connectApi}, type: openapi}
workflows:
  - workflowId: rewind
    inputs: {type: object, properties: {name: {type: string}, offsets: {type: array}, unused: {type: string}}}
    steps:
      - stepId: stop
        operationId: stopConnector
        parameters: [{name: connector, in: path, value: $inputs.name}]
        successCriteria: [{condition: $statusCode == 204}]
      - stepId: alter
        operationId: alterConnectorOffsets
        parameters: [{name: connector, in: path, value: $inputs.name}]
        requestBody: {payload: {offsets: $inputs.offsets}}
      - stepId: resume
        operationId: resumeConnector
        parameters: [{name: connector, in: path, value: $inputs.name}]
      - stepId: running
        operationId: getConnectorStatus
        parameters: [{name: connector, in: path, value: $inputs.name}]
        successCriteria: [{condition: "$response.body#/connector/state == 'RUNNING'"}]
        outputs: {state: $response.body#/connector/state}
      - stepId: restart
        operationId: restartConnector
        parameters: [{name: connector, in: path, value: $inputs.name}, {name: includeTasks, in: query, value: true}]
        successCriteria: [{condition: $statusCode == 204}]
        onSuccess: [{name: done, type: end}]
      - stepId: never
        operationId: getConnectorStatus
        parameters: [{name: connector, in: path, value: $inputs.name}]
`;

describe('workflow lint', () => {
  it('reports rule ids and severities, the Connect rules among them, as JSON; an error finding exits 1', async () => {
    const r = await offsetctl(['workflow', 'lint', file('seed-like.arazzo.yaml', SEED_LIKE), '--format', 'json']);
    assert.equal(r.code, 1, r.stderr);
    const report = JSON.parse(r.stdout) as { findings: Array<{ rule: string; severity: string; pointer: string; line?: number }>; counts: Record<string, number> };
    const rules = (pointer: string): string[] => report.findings.filter((f) => f.pointer === pointer).map((f) => `${f.severity} ${f.rule}`);
    assert.deepEqual(rules('/workflows/0/steps/1'), ['error connect/offsets-after-stop-without-wait']);
    assert.deepEqual(rules('/workflows/0/steps/3'), ['warning connect/state-assertion-without-retry']);
    assert.deepEqual(rules('/workflows/0/steps/4'), ['warning connect/restart-expects-200-204']);
    assert.deepEqual(rules('/workflows/0/steps/5'), ['warning unreachable-step']);
    assert.deepEqual(rules('/workflows/0/steps/3/outputs/state'), ['warning unused-output']);
    assert.deepEqual(rules('/workflows/0/inputs/properties/unused'), ['warning unused-input']);
    assert.equal(report.counts['error'], 1);
    assert.ok(report.findings.every((f) => typeof f.line === 'number'));
  });

  it('the seeds, as shipped in examples/seeds, lint with the offsets-after-stop rule firing on their PATCH/DELETE', async () => {
    const seeds: Array<[string, string[]]> = [
      ['rewind-connector-offsets.arazzo.yaml', ['--source', `connectorsApi=${connectApi}`, '--source', `offsetsApi=${connectApi}`]],
      ['reset-connector-offsets.arazzo.yaml', ['--source', `kafkaConnectApi=${connectApi}`]],
    ];
    for (const [name, sources] of seeds) {
      const r = await offsetctl(['workflow', 'lint', join(repoRoot, 'examples', 'seeds', name), ...sources, '--format', 'json']);
      const report = JSON.parse(r.stdout) as { findings: Array<{ rule: string; severity: string }> };
      const fired = report.findings.filter((f) => f.rule === 'connect/offsets-after-stop-without-wait');
      assert.equal(fired.length, 1, `${name}: ${r.stdout}`);
      assert.equal(fired[0]?.severity, 'error', name);
      assert.equal(r.code, 1, `${name}: an error finding exits 1`);
    }
  });

  it("the project's own workflows wait for STOPPED with no tasks: the offsets rule stays quiet", async () => {
    for (const name of ['rewind', 'reset', 'restore']) {
      const r = await offsetctl(['workflow', 'lint', join(repoRoot, 'workflows', `${name}-connector-offsets.arazzo.yaml`), '--format', 'json']);
      const report = JSON.parse(r.stdout) as { findings: Array<{ rule: string }> };
      assert.equal(report.findings.some((f) => f.rule === 'connect/offsets-after-stop-without-wait'), false, name);
      assert.equal(r.code, 0, `${name}: ${r.stdout}`);
    }
  });

  it('every shipped workflow passes its own lint with no finding at all (issue 20, point 15: three had unused-output initialTasks)', async () => {
    const shipped = readdirSync(join(repoRoot, 'workflows')).filter((f) => f.endsWith('.arazzo.yaml'));
    // rewind, reset, restore, the Arazzo 1.1 demonstration, the move, import and delete of moves, replay's table re-read,
    // and the Iceberg table step.
    assert.equal(shipped.length, 9);
    for (const name of shipped) {
      const r = await offsetctl(['workflow', 'lint', join(repoRoot, 'workflows', name), '--format', 'json']);
      const report = JSON.parse(r.stdout) as { findings: Array<{ rule: string; message: string }> };
      assert.deepEqual(report.findings.map((f) => `${f.rule}: ${f.message}`), [], name);
    }
  });

  it('lint and validate take several files (a shell glob): one report per file, every file checked, the worst exit status (issue 30, point 24)', async () => {
    const shipped = readdirSync(join(repoRoot, 'workflows')).filter((f) => f.endsWith('.arazzo.yaml')).map((f) => join(repoRoot, 'workflows', f));
    let r = await offsetctl(['workflow', 'lint', ...shipped]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.stdout.trim().split('\n'), shipped.map((f) => `${f}: no findings`));
    r = await offsetctl(['workflow', 'lint', ...shipped.slice(0, 2), '--format', 'json']);
    assert.deepEqual((JSON.parse(r.stdout) as Array<{ file: string; counts: { error: number } }>).map((x) => [x.file, x.counts.error]), shipped.slice(0, 2).map((f) => [f, 0]));
    const broken = file('broken.arazzo.yaml', 'arazzo: 1.0.1\ninfo: {title: x}\n');
    r = await offsetctl(['workflow', 'validate', shipped[0]!, broken, shipped[1]!]);
    assert.equal(r.code, 2, 'the worst: an invalid file');
    assert.match(r.stdout, new RegExp(`^${shipped[0]}: valid$`, 'm'));
    assert.match(r.stdout, new RegExp(`^${shipped[1]}: valid$`, 'm'), 'the file after the broken one is still checked');
    assert.match(r.stderr, /broken\.arazzo\.yaml: error \[E_DOCUMENT_INVALID\]/);
    assert.match(r.stderr, /1 of 3 file\(s\) not valid: .*broken\.arazzo\.yaml/);
    r = await offsetctl(['workflow', 'validate', shipped[0]!, broken, '-o', 'json']);
    assert.deepEqual((JSON.parse(r.stdout) as Array<{ file: string; valid: boolean }>).map((x) => x.valid), [true, false]);
  });

  it('flags a goto loop with no exit condition and a status read right after create without a 404 retry', async () => {
    const doc = `arazzo: 1.0.1
info: {title: loops, version: 1.0.0}
sourceDescriptions:
  - {name: connect, url: ${connectApi}, type: openapi}
workflows:
  - workflowId: w
    steps:
      - stepId: create
        operationId: createConnector
        requestBody: {payload: {name: x, config: {}}}
      - stepId: status
        operationId: getConnectorStatus
        parameters: [{name: connector, in: path, value: x}]
      - stepId: spin
        operationId: listConnectors
        onSuccess: [{name: again, type: goto, stepId: status}]
`;
    const r = await offsetctl(['workflow', 'lint', file('loops.arazzo.yaml', doc), '--format', 'json']);
    const report = JSON.parse(r.stdout) as { findings: Array<{ rule: string; pointer: string }> };
    assert.ok(report.findings.some((f) => f.rule === 'goto-loop-without-exit' && f.pointer === '/workflows/0/steps/2'), r.stdout);
    assert.ok(report.findings.some((f) => f.rule === 'connect/status-after-create-without-404-retry' && f.pointer === '/workflows/0/steps/1'), r.stdout);
    assert.equal(r.code, 1);
  });
});

describe('workflow upgrade', () => {
  const V10 = `# kept comment
arazzo: "1.0.1"   # trailing comment kept
info: {title: t, version: 1.0.0}
sourceDescriptions:
  - {name: api, url: ./api.yaml, type: openapi}
workflows:
  - workflowId: w
    steps:
      - stepId: a
        operationId: getItem
        successCriteria:
          - {context: $response.body, type: regex, condition: '^{$inputs.p}$'}
      - stepId: b
        operationId: getItem
        parameters: [{name: id, in: path, value: $steps.c.outputs.id}]
      - stepId: c
        operationId: getItem
        outputs: {id: $response.body}
`;
  it('rewrites only what changes: the version, and {$ in a regex condition escaped to keep its 1.0 meaning; lists what needs a person', () => {
    const { text, notes } = upgradeText(V10, 'w.arazzo.yaml');
    const expected = V10.replace('"1.0.1"', '"1.1.0"').replace("'^{$inputs.p}$'", () => "'^{$$inputs.p}$'");
    assert.equal(text, expected, 'everything else is byte for byte the same');
    assert.deepEqual(notes.map((n) => `${n.kind} ${n.pointer}`), ['changed /arazzo', 'pinned /workflows/0/steps/0/successCriteria/0', 'review /workflows/0/steps/1']);
    assert.match(notes[2]!.message, /reads \$steps\.c, which comes later/);
  });

  it('the command writes the file; a 1.1 document is refused', async () => {
    const path = file('w.arazzo.yaml', V10);
    const r = await offsetctl(['workflow', 'upgrade', path]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(readFileSync(path, 'utf8'), /^arazzo: "1\.1\.0"/m);
    assert.match(r.stderr, /2 item\(s\) need a person/);
    const again = await offsetctl(['workflow', 'upgrade', path]);
    assert.equal(again.code, 2);
    assert.match(again.stderr, /not a 1\.0\.x document/);
  });
});
