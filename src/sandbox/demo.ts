// `offsetctl sandbox demo`: the README's first command. Brings the sandbox up, pipes a small
// file through FileStreamSource -> topic -> FileStreamSink, rewinds the source to position 0
// with `offsetctl rewind` (exactly as an operator would: it runs
// workflows/rewind-connector-offsets.arazzo.yaml) and shows the lines that were replayed.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConnectRest } from './connect-rest.js';
import { SandboxError } from './errors.js';
import { createFilePipeline, readLines, waitForLines, waitForSourceCaughtUp } from './file-pipeline.js';
import { projectRoot, resolveSandboxDir, sandboxCommand } from './layout.js';
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

    const offsets = { offsets: [{ partition: { filename: pipeline.inputFile }, offset: { position: 0 } }] };
    const offsetsFile = join(dir, 'demo', `${pipeline.source}.rewind.json`);
    writeFileSync(offsetsFile, `${JSON.stringify(offsets, null, 2)}\n`);
    const stateDir = join(dir, 'demo', 'state');
    write(`3. Rewinding the source to position 0 (pre-flight, diff, stop, wait for STOPPED, snapshot, PATCH, verify, resume):\n`);
    write(`   $ offsetctl rewind ${pipeline.source} --offsets ${offsetsFile} --yes --url ${worker} --state-dir ${stateDir}\n`);
    const code = await runRewindCommand(['rewind', pipeline.source, '--offsets', offsetsFile, '--yes', '--url', worker, '--state-dir', stateDir]);
    if (code !== 0) throw new SandboxError('E_SANDBOX_DEMO', `the sandbox is running, but the demo's \`offsetctl rewind\` did not succeed (exit ${code}); see its output above`);

    const after = await waitForLines(pipeline.outputFile, before.length * 2);
    const replayed = after.slice(before.length);
    write(`4. The sink's file went from ${before.length} to ${after.length} lines; replayed:\n${indent(replayed)}\n\n`);
    write(`The sandbox is still running (${dir}).\n  Look around: curl ${worker}/connectors ; ${sandboxCommand('logs', dir)}\n  Stop it:     ${sandboxCommand('down', dir)}\n`);
    return { source: pipeline.source, sink: pipeline.sink, inputFile: pipeline.inputFile, outputFile: pipeline.outputFile, linesBefore: before.length, linesAfter: readLines(pipeline.outputFile).length, replayed };
  } finally {
    // The sandbox may be shared with tests: leave no running demo connectors behind.
    if (!options.keepConnectors) await pipeline.remove();
  }
}

function indent(lines: string[]): string {
  return lines.map((l) => `     | ${l}`).join('\n');
}

/** Runs the operator command as a user would, its output going straight to the terminal. */
function runRewindCommand(args: string[]): Promise<number> {
  const root = projectRoot();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, 'bin', 'offsetctl'), ...args], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('error', reject);
    child.on('close', (code) => resolve(code ?? 1));
  });
}
