// `offsetctl workflow validate|plan|run` as a user runs them: the real commands (in-process), real documents
// (the two seeds), a loopback server, stdout and exit status checked.
// Real parts: a loopback HTTP server, the CLI in-process.
import { after, before, describe, it } from 'node:test';
import { strict as assert } from 'node:assert';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { arazzo, fixture, repoRoot, runnerApi } from './support/engine.js';
import { startFakeConnect } from './support/fake-connect.js';
import { startServer, type TestServer } from './support/server.js';
import { runInProcess } from '../support/in-process.js';

const seeds = join(repoRoot, 'examples', 'seeds');
const resetSeed = join(seeds, 'reset-connector-offsets.arazzo.yaml');
const rewindSeed = join(seeds, 'rewind-connector-offsets.arazzo.yaml');
const resetSources = ['--source', `kafkaConnectApi=${fixture('runner-connect-all.yaml')}`];
const rewindSources = ['--source', `connectorsApi=${fixture('runner-connect-connectors.yaml')}`, '--source', `offsetsApi=${fixture('runner-connect-offsets.yaml')}`];

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Asynchronous on purpose (runCli): the test's own server must keep answering while the CLI runs. */
async function offsetctl(args: string[]): Promise<CliResult> {
  const r = await runInProcess(args, { timeoutMs: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('offsetctl workflow', () => {
  let connect: Awaited<ReturnType<typeof startFakeConnect>>;
  let api: TestServer;
  let dir: string;
  before(async () => {
    connect = await startFakeConnect(['sink-1']);
    let polls = 0;
    api = await startServer({
      'GET /status': () => ({ body: { state: 'RUNNING' } }),
      'GET /flaky': () => ({ status: 503, body: { error: 'busy' } }),
      // RUNNING from the third request on: a poll that ends in a pass.
      'GET /eventually': () => ({ body: { state: (polls += 1) >= 3 ? 'RUNNING' : 'STARTING' } }),
    });
    dir = await mkdtemp(join(tmpdir(), 'offsetctl-cli-'));
  });
  after(async () => {
    await connect.close();
    await api.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function writeDoc(name: string, workflows: string): Promise<string> {
    const file = join(dir, name);
    await writeFile(file, arazzo(workflows));
    return file;
  }

  it('validates both seed documents with their sources mapped to local files', async () => {
    for (const [seed, sources] of [[resetSeed, resetSources], [rewindSeed, rewindSources]] as const) {
      const r = await offsetctl(['workflow', 'validate', seed, ...sources]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /valid/);
    }
  });

  it('plans the six steps of each seed without sending anything', async () => {
    const r = await offsetctl(['workflow', 'plan', rewindSeed, ...rewindSources, '--server', connect.url, '--input', 'connectorName=sink-1', '--output', 'json']);
    assert.equal(r.code, 0, r.stderr);
    const plan = JSON.parse(r.stdout) as { steps: Array<{ stepId: string; request?: { method: string; url: string } }> };
    assert.deepEqual(plan.steps.map((s) => s.stepId), ['stopConnector', 'captureOffsets', 'rewindOffsets', 'verifyOffsets', 'resumeConnector', 'confirmReplaying']);
    assert.deepEqual(plan.steps[0]!.request, { method: 'PUT', url: `${connect.url}/connectors/sink-1/stop`, headers: {} } as unknown);
    const text = await offsetctl(['workflow', 'plan', resetSeed, ...resetSources]);
    assert.equal(text.code, 0, text.stderr);
    for (const step of ['stopConnector', 'snapshotOffsets', 'resetOffsets', 'confirmCleared', 'resumeConnector', 'confirmReprocessing']) assert.match(text.stdout, new RegExp(`\\d\\. ${step}\\n`));
    assert.match(text.stdout, /PUT http:\/\/127\.0\.0\.1:8083\/connectors\/\{\$inputs\.connectorName\}\/stop/);
    assert.equal(connect.requests.length, 0);
  });

  it('validates and plans the reset seed against the project\'s own Kafka Connect description', { skip: !existsSync(join(repoRoot, 'openapi', 'kafka-connect.yaml')) }, async () => {
    const sources = ['--source', `kafkaConnectApi=${join(repoRoot, 'openapi', 'kafka-connect.yaml')}`];
    const valid = await offsetctl(['workflow', 'validate', resetSeed, ...sources]);
    assert.equal(valid.code, 0, valid.stderr);
    const plan = await offsetctl(['workflow', 'plan', resetSeed, ...sources, '--input', 'connectorName=s', '--output', 'json']);
    assert.equal(plan.code, 0, plan.stderr);
    assert.equal((JSON.parse(plan.stdout) as { steps: unknown[] }).steps.length, 6);
  });

  it('runs the rewind seed end to end and prints one JSON document', async () => {
    const offsets = [{ partition: { kafka_topic: 't', kafka_partition: 0 }, offset: { kafka_offset: 7 } }];
    const r = await offsetctl(['workflow', 'run', rewindSeed, ...rewindSources, '--server', connect.url, '--input', 'connectorName=sink-1', '--input', `offsets=${JSON.stringify(offsets)}`, '--output', 'json']);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    const doc = JSON.parse(r.stdout) as { workflowId: string; status: string; outputs: Record<string, unknown>; steps: unknown[] };
    assert.equal(doc.workflowId, 'rewind-connector-offsets');
    assert.equal(doc.status, 'passed');
    assert.equal(doc.steps.length, 6);
    assert.deepEqual(doc.outputs['rewoundOffsets'], offsets);
    assert.equal(doc.outputs['connectorState'], 'RUNNING');
    assert.deepEqual(connect.connectors.get('sink-1')!.offsets, offsets);
  });

  it('reads inputs from --inputs, with --input values winning', async () => {
    const file = join(dir, 'inputs.json');
    await writeFile(file, JSON.stringify({ connectorName: 'nobody' }));
    const r = await offsetctl(['workflow', 'run', resetSeed, ...resetSources, '--server', connect.url, '--inputs', file, '--input', 'connectorName=sink-1', '--output', 'json']);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.equal((JSON.parse(r.stdout) as { status: string }).status, 'passed');
    assert.deepEqual(connect.connectors.get('sink-1')!.offsets, []);
  });

  it('shows each step with its request, status and the criteria that failed, and exits 1 when the workflow fails', async () => {
    const r = await offsetctl(['workflow', 'run', resetSeed, ...resetSources, '--server', connect.url, '--input', 'connectorName=nobody']);
    assert.equal(r.code, 1);
    assert.match(r.stdout, /FAIL stopConnector {2}PUT http:\/\/127\.0\.0\.1:\d+\/connectors\/nobody\/stop → 404/);
    assert.match(r.stdout, /criterion failed: .*204/);
    assert.match(r.stdout, /workflow reset-connector-offsets failed/);
  });

  it('refuses bad inputs with exit 2 before any request, still printing one JSON document', async () => {
    const before = connect.requests.length;
    const r = await offsetctl(['workflow', 'run', rewindSeed, ...rewindSources, '--server', connect.url, '--input', 'connectorName=sink-1', '--input', 'offsets={"not":"an array"}', '--output', 'json']);
    assert.equal(r.code, 2);
    const doc = JSON.parse(r.stdout) as { status: string; error: { code: string; message: string } };
    assert.equal(doc.status, 'failed');
    assert.equal(doc.error.code, 'E_INPUTS');
    assert.match(doc.error.message, /input "offsets": must be array/);
    assert.match(r.stderr, /E_INPUTS/);
    assert.equal(connect.requests.length, before);
  });

  it('writes JUnit with one test case per step and the failure message', async () => {
    const file = await writeDoc('junit.arazzo.yaml', `
  - workflowId: ci
    steps:
      - stepId: status
        operationId: getStatus
        successCriteria: [{condition: $statusCode == 200}]
      - stepId: flaky
        operationId: getFlaky
        successCriteria: [{condition: $statusCode == 200}]
`);
    const r = await offsetctl(['workflow', 'run', file, '--source', `api=${runnerApi}`, '--server', api.url, '--output', 'junit']);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stdout, /^<\?xml version="1.0" encoding="UTF-8"\?>/);
    assert.equal(r.stdout.match(/<testcase /g)?.length, 2);
    assert.match(r.stdout, /<testcase classname="ci" name="status" time="[\d.]+"\/>/);
    assert.match(r.stdout, /<failure message="[^"]*503[^"]*"/);
  });

  it('JUnit: a polled step that ends in a pass is one passing test case, not a failure per poll (issue 20, point 12)', async () => {
    const file = await writeDoc('junit-poll.arazzo.yaml', `
  - workflowId: ci
    steps:
      - stepId: waitForRunning
        operationId: getEventually
        successCriteria: [{condition: $statusCode == 200}, {condition: $response.body#/state == 'RUNNING'}]
        onFailure: [{name: poll, type: retry, retryAfter: 0, retryLimit: 5}]
      - stepId: status
        operationId: getStatus
        successCriteria: [{condition: $statusCode == 200}]
`);
    const r = await offsetctl(['workflow', 'run', file, '--source', `api=${runnerApi}`, '--server', api.url, '--output', 'junit']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.doesNotMatch(r.stdout, /<failure/);
    assert.match(r.stdout, /<testsuite name="ci" tests="2" failures="0"/);
    assert.match(r.stdout, /<testcase classname="ci" name="waitForRunning \(3 attempts\)" time="[\d.]+">\n\s*<system-out>passed on attempt 3; attempt 1: criterion failed: [^<]*STARTING/);
  });

  it('refuses the same --input twice instead of keeping the last (issue 20, point 15)', async () => {
    const file = await writeDoc('inputs-twice.arazzo.yaml', `
  - workflowId: ci
    inputs: {type: object, properties: {name: {type: string}}}
    steps:
      - stepId: status
        operationId: getStatus
        successCriteria: [{condition: $statusCode == 200}]
`);
    const r = await offsetctl(['workflow', 'run', file, '--source', `api=${runnerApi}`, '--server', api.url, '--input', 'name=a', '--input', 'name=b']);
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stderr, /--input name is given twice \("a", then "b"\); give each input once/);
  });

  it('stops an endless loop at --max-steps with exit 1 and says how to raise it', async () => {
    const file = await writeDoc('loop.arazzo.yaml', `
  - workflowId: loop
    steps:
      - stepId: spin
        operationId: getStatus
        onSuccess: [{name: again, type: goto, stepId: spin}]
`);
    const r = await offsetctl(['workflow', 'run', file, '--source', `api=${runnerApi}`, '--server', api.url, '--max-steps', '5', '--output', 'json']);
    assert.equal(r.code, 1);
    const doc = JSON.parse(r.stdout) as { error: { code: string; message: string }; steps: unknown[] };
    assert.equal(doc.error.code, 'E_STEP_BUDGET');
    assert.match(doc.error.message, /--max-steps/);
    assert.equal(doc.steps.length, 5);
  });

  it('plans a document whose source declares no server, and refuses to run it without --server', async () => {
    const file = await writeDoc('noserver.arazzo.yaml', `
  - workflowId: status
    steps:
      - stepId: status
        operationId: getStatus
`);
    const source = ['--source', `api=${fixture('runner-no-servers.yaml')}`];
    const plan = await offsetctl(['workflow', 'plan', file, ...source]);
    assert.equal(plan.code, 0, plan.stderr);
    assert.match(plan.stdout, /request: {3}GET \{server\}\/status/);
    const run = await offsetctl(['workflow', 'run', file, ...source]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /E_SOURCE.*--server/);
  });

  it('turns the engine\'s neutral hints into advice about its own flags', async () => {
    const file = await writeDoc('hints.arazzo.yaml', `
  - workflowId: needs
    inputs: {type: object, required: [connector], properties: {connector: {type: string}}}
    steps:
      - stepId: status
        operationId: getStatus
  - workflowId: other
    steps:
      - stepId: status
        operationId: getStatus
`);
    const source = ['--source', `api=${runnerApi}`, '--server', api.url];
    const missing = await offsetctl(['workflow', 'run', file, ...source, '--workflow', 'needs']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /E_INPUTS.*input "connector": is required — pass it with --input connector=\.\.\. or in --inputs <file>/);
    const which = await offsetctl(['workflow', 'run', file, ...source, '--output', 'json']);
    assert.equal(which.code, 2);
    const doc = JSON.parse(which.stdout) as { error: { code: string; message: string; hint: unknown } };
    assert.equal(doc.error.code, 'E_WORKFLOW_NOT_FOUND');
    assert.match(doc.error.message, /\(needs, other\): say which one to run — choose one with --workflow <id>/);
    assert.deepEqual(doc.error.hint, { kind: 'choose-workflow', ids: ['needs', 'other'] });
    const typo = await offsetctl(['workflow', 'validate', file, ...source, '--source', 'apu=x.yaml']);
    assert.equal(typo.code, 2);
    assert.match(typo.stderr, /the source mapping "apu" names no sourceDescription; the names are: api — check --source apu=\.\.\./);
    const typoJson = await offsetctl(['workflow', 'validate', file, ...source, '--source', 'apu=x.yaml', '--output', 'json']);
    assert.match((JSON.parse(typoJson.stdout) as { error: { message: string } }).error.message, /the names are: api — check --source apu=\.\.\./);
  });

  it('refuses bad arguments and unknown workflows with exit 2', async () => {
    const bad = await offsetctl(['workflow', 'run', resetSeed, ...resetSources, '--output', 'xml']);
    assert.equal(bad.code, 2);
    const unknown = await offsetctl(['workflow', 'run', resetSeed, ...resetSources, '--workflow', 'nope', '--output', 'json']);
    assert.equal(unknown.code, 2);
    assert.equal((JSON.parse(unknown.stdout) as { error: { code: string } }).error.code, 'E_WORKFLOW_NOT_FOUND');
  });
});

describe('workflow run: Kafka security for AsyncAPI steps', () => {
  it('takes the operator commands\' Kafka flags and refuses what they refuse, before any request', async () => {
    const literal = await offsetctl(['workflow', 'run', resetSeed, ...resetSources, '--kafka-password', 'hunter2-literal']);
    assert.equal(literal.code, 2, literal.stderr);
    assert.match(literal.stderr, /--kafka-password is not accepted.*--kafka-password-env/);
    assert.doesNotMatch(literal.stderr + literal.stdout, /hunter2-literal/);
    const unset = await offsetctl(['workflow', 'run', resetSeed, ...resetSources, '--kafka-sasl-user', 'ops', '--kafka-password-env', 'OFFSETCTL_TEST_UNSET_KAFKA_PASSWORD']);
    assert.equal(unset.code, 2, unset.stderr);
    assert.match(unset.stderr, /OFFSETCTL_TEST_UNSET_KAFKA_PASSWORD is not set/);
    const half = await offsetctl(['workflow', 'run', resetSeed, ...resetSources, '--kafka-cert', join(repoRoot, 'README.md')]);
    assert.equal(half.code, 2, half.stderr);
    assert.match(half.stderr, /needs both --kafka-cert and --kafka-key/);
  });
});
