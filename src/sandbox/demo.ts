// `offsetctl sandbox demo`: the README's first command. Brings the sandbox up, pipes a small
// file through FileStreamSource -> topic -> FileStreamSink, rewinds the source to position 0
// with workflows/rewind-connector-offsets.arazzo.yaml (through `offsetctl workflow run`, exactly
// as an operator would) and shows the lines that were replayed.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ConnectRest } from './connect-rest.js';
import { SandboxError } from './errors.js';
import { createFilePipeline, readLines, waitForLines, waitForSourceCaughtUp } from './file-pipeline.js';
import { projectRoot, resolveSandboxDir } from './layout.js';
import { sandboxUp } from './up.js';

export interface SandboxDemoOptions {
  dir?: string;
  /** Where the story goes (stdout in the CLI). */
  write: (text: string) => void;
  /** Progress of the sandbox start-up (stderr in the CLI). */
  progress?: (line: string) => void;
  /** Keep the demo connectors afterwards (default: delete them, keep the files). */
  keepConnectors?: boolean;
}

export interface SandboxDemoResult {
  source: string;
  sink: string;
  inputFile: string;
  outputFile: string;
  linesBefore: number;
  linesAfter: number;
  replayed: string[];
}

const DEMO_LINES = ['order 1001 created', 'order 1001 paid', 'order 1002 created', 'order 1001 shipped', 'order 1002 cancelled'];

export async function runSandboxDemo(options: SandboxDemoOptions): Promise<SandboxDemoResult> {
  const write = options.write;
  const dir = resolveSandboxDir(options.dir);
  const sandbox = await sandboxUp({ dir, ...(options.progress ? { progress: options.progress } : {}) });
  const worker = sandbox.connect[0];
  if (!worker) throw new SandboxError('E_SANDBOX_NOT_RUNNING', 'the sandbox reports no Connect worker');
  write(`Sandbox: broker ${sandbox.bootstrap}, Connect workers ${sandbox.connect.join(', ')}\n\n`);

  const rest = new ConnectRest(worker);
  const pipeline = await createFilePipeline(rest, { dir: join(dir, 'demo'), prefix: 'demo', lines: DEMO_LINES });
  try {
    write(`1. FileStreamSource "${pipeline.source}" reads ${pipeline.inputFile}\n   into topic "${pipeline.topic}"; FileStreamSink "${pipeline.sink}" writes it to ${pipeline.outputFile}\n`);
    await rest.waitForRunning(pipeline.source);
    await rest.waitForRunning(pipeline.sink);
    const before = await waitForLines(pipeline.outputFile, DEMO_LINES.length);
    await waitForSourceCaughtUp(rest, pipeline);
    write(`2. All ${before.length} lines arrived in the sink's file:\n${indent(before)}\n`);

    const offsets = [{ partition: { filename: pipeline.inputFile }, offset: { position: 0 } }];
    write(`3. Rewinding the source to position 0 with workflows/rewind-connector-offsets.arazzo.yaml:\n`);
    const run = await runRewindWorkflow(worker, pipeline.source, offsets);
    write(`   $ offsetctl workflow run workflows/rewind-connector-offsets.arazzo.yaml --server ${worker} \\\n       --input connectorName=${pipeline.source} --input 'offsets=${JSON.stringify(offsets)}'\n`);
    write(`   workflow ${run.status}: offsets were ${JSON.stringify(run.outputs['previousOffsets'])}, now ${JSON.stringify(run.outputs['rewoundOffsets'])}\n`);
    if (run.status !== 'passed') throw new SandboxError('E_SANDBOX_START', `the rewind workflow failed: ${JSON.stringify(run.error ?? run.steps.slice(-1))}`);

    const after = await waitForLines(pipeline.outputFile, before.length * 2);
    const replayed = after.slice(before.length);
    write(`4. The sink's file went from ${before.length} to ${after.length} lines; replayed:\n${indent(replayed)}\n\n`);
    write(`The sandbox is still running (${dir}).\n  Look around: curl ${worker}/connectors ; offsetctl sandbox logs\n  Stop it:     offsetctl sandbox down\n`);
    return { source: pipeline.source, sink: pipeline.sink, inputFile: pipeline.inputFile, outputFile: pipeline.outputFile, linesBefore: before.length, linesAfter: readLines(pipeline.outputFile).length, replayed };
  } finally {
    // The sandbox may be shared with tests: leave no running demo connectors behind.
    if (!options.keepConnectors) await pipeline.remove();
  }
}

function indent(lines: string[]): string {
  return lines.map((l) => `     | ${l}`).join('\n');
}

interface WorkflowRunJson {
  status: string;
  outputs: Record<string, unknown>;
  steps: unknown[];
  error?: unknown;
}

function runRewindWorkflow(server: string, connectorName: string, offsets: unknown): Promise<WorkflowRunJson> {
  const root = projectRoot();
  const args = [join(root, 'bin', 'offsetctl'), 'workflow', 'run', join(root, 'workflows', 'rewind-connector-offsets.arazzo.yaml'),
    '--server', server, '--input', `connectorName=${connectorName}`, '--input', `offsets=${JSON.stringify(offsets)}`, '--output', 'json'];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => {
      try {
        resolve(JSON.parse(stdout) as WorkflowRunJson);
      } catch {
        reject(new SandboxError('E_SANDBOX_START', `\`offsetctl workflow run\` printed no JSON (exit ${code}): ${stderr.trim() || stdout.trim()}`));
      }
    });
  });
}
