// Figure 3: start-up. `offsetctl --version` and `offsetctl workflow validate <seed>` against bare
// `node -e 0`, whole processes, interleaved. When validate is slow, a CPU profile of it names the
// packages whose code ran, and each of them is imported alone in a fresh Node to price it.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ConnectRest, createFilePipeline } from '../src/sandbox/index.js';
import { cli, repoRoot, type BenchOptions, type FigureResult, type FigureRow } from './figure.js';
import { explainCommand } from './explain-command.js';
import { timeNode, timeSpawn } from './process.js';
import { median, round, summarize } from './stats.js';

const VERSION_BUDGET_MS = 80;
/** Above this many ms over bare Node, validate gets profiled even without --profile. */
const VALIDATE_PROFILE_MS = 150;

export const seedFile = resolve(repoRoot, 'examples', 'seeds', 'reset-connector-offsets.arazzo.yaml');
export const connectOpenApi = resolve(repoRoot, 'openapi', 'kafka-connect.yaml');
// The reset seed has a single source description, so mapping it needs one --source.
const validateArgs = [cli, 'workflow', 'validate', seedFile, '--source', `kafkaConnectApi=${connectOpenApi}`];

export async function measureStartup(options: BenchOptions): Promise<FigureResult> {
  const rounds = options.quick ? 5 : 15;
  const version = (JSON.parse(readFileSync(resolve(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;
  const why = await validateUnavailable();
  const node: number[] = [];
  const ver: number[] = [];
  const val: number[] = [];
  await timeSpawn(process.execPath, ['-e', '0']); // page cache warm-up, untimed
  for (let i = 0; i < rounds; i++) {
    node.push((await timeSpawn(process.execPath, ['-e', '0'])).ms);
    const v = await timeSpawn(process.execPath, [cli, '--version']);
    if (v.status !== 0 || v.stdout.trim() !== version)
      throw new Error(`offsetctl --version printed "${v.stdout.trim()}" (exit ${v.status}), expected ${version}`);
    ver.push(v.ms);
    if (why === undefined) {
      const w = await timeSpawn(process.execPath, validateArgs);
      if (w.status !== 0)
        throw new Error(`offsetctl workflow validate failed (exit ${w.status}): ${(w.stderr || w.stdout).trim().split('\n').slice(0, 3).join(' | ')}`);
      val.push(w.ms);
    }
  }
  const base = median(node);
  const versionDelta = median(ver) - base;
  const rows: FigureRow[] = [
    {
      id: '3.startup-version',
      figure: 'start-up: offsetctl --version',
      measured: median(ver),
      reference: base,
      unit: 'ms',
      referenceLabel: 'node -e 0',
      ratio: median(ver) / base,
      target: `≤ +${VERSION_BUDGET_MS} ms`,
      verdict: versionDelta <= VERSION_BUDGET_MS ? 'pass' : 'miss',
      note: `${signed(versionDelta)} ms over bare node, ${rounds} interleaved spawns`,
    },
  ];
  const raw: Record<string, unknown> = {
    rounds,
    nodeMs: node.map((x) => round(x)),
    versionMs: ver.map((x) => round(x)),
    node: summarize(node),
    version: summarize(ver),
  };
  rows.push(...(await measureReadCommands(rounds, raw)));
  if (why !== undefined) {
    rows.push({
      id: '3.startup-validate',
      figure: 'start-up: workflow validate <seed>',
      measured: null,
      reference: null,
      unit: '',
      referenceLabel: '',
      ratio: null,
      target: 'load only what it needs',
      verdict: 'skipped',
      note: `skipped: ${why}`,
    });
    return { rows, raw };
  }
  const validateDelta = median(val) - base;
  raw['validateMs'] = val.map((x) => round(x));
  raw['validate'] = summarize(val);
  raw['validateCommand'] = ['offsetctl', ...validateArgs.slice(1)].join(' ');
  let note = `${signed(validateDelta)} ms over bare node`;
  if (validateDelta > VALIDATE_PROFILE_MS || options.profile) {
    const explained = await explainCommand(validateArgs, 6);
    raw['validateProfile'] = explained;
    const top = explained.imports.slice(0, 3).map((x) => `${x.spec} ${round(x.ms, 0)} ms`);
    note += `; Node's module loader ${round(explained.moduleLoaderShare * 100, 0)}% of busy CPU; heaviest imports alone: ${top.join(', ')}`;
  }
  rows.push({
    id: '3.startup-validate',
    figure: 'start-up: workflow validate <seed>',
    measured: median(val),
    reference: base,
    unit: 'ms',
    referenceLabel: 'node -e 0',
    ratio: median(val) / base,
    target: 'info (no number in the issue)',
    verdict: 'info',
    note,
  });
  return { rows, raw };
}

const READ_BUDGET_MS = 120;

/**
 * `offsetctl connectors` and `offsetctl offsets get <c>` against the first sandbox worker, each
 * interleaved with `node -e 0`: the budget is 120 ms over bare Node, network included.
 */
async function measureReadCommands(rounds: number, raw: Record<string, unknown>): Promise<FigureRow[]> {
  const status = await timeSpawn(process.execPath, [cli, 'sandbox', 'status', '--output', 'json']);
  let url: string | undefined;
  try {
    url = (JSON.parse(status.stdout) as { running?: boolean; connect?: string[] }).connect?.[0];
  } catch {
    url = undefined;
  }
  const skipped = (id: string, figure: string, why: string): FigureRow => ({
    id,
    figure,
    measured: null,
    reference: null,
    unit: '',
    referenceLabel: '',
    ratio: null,
    target: `≤ +${READ_BUDGET_MS} ms`,
    verdict: 'skipped',
    note: `skipped: ${why}`,
  });
  if (!url)
    return [
      skipped('3.startup-connectors', 'start-up: connectors', 'no sandbox running (offsetctl sandbox up)'),
      skipped('3.startup-offsets', 'start-up: offsets get <c>', 'no sandbox running'),
    ];
  // A connector of the bench's own: on a shared sandbox other connectors come and go.
  const rest = new ConnectRest(url);
  const pipeline = await createFilePipeline(rest, {
    dir: mkdtempSync(join(tmpdir(), 'offsetctl-bench-startup-')),
    prefix: 'bench-startup',
    lines: ['a', 'b'],
    withSink: false,
  });
  try {
    await rest.waitForRunning(pipeline.source);
    return await timeReadCommands(rounds, raw, url, pipeline.source);
  } finally {
    await pipeline.remove();
  }
}

async function timeReadCommands(rounds: number, raw: Record<string, unknown>, url: string, connector: string): Promise<FigureRow[]> {
  const commands: Array<{ id: string; figure: string; args: string[] }> = [
    { id: '3.startup-connectors', figure: 'start-up: connectors (sandbox)', args: [cli, 'connectors', '--url', url] },
    { id: '3.startup-offsets', figure: 'start-up: offsets get <c> (sandbox)', args: [cli, 'offsets', 'get', connector, '--url', url] },
  ];
  const rows: FigureRow[] = [];
  for (const c of commands) {
    const node: number[] = [];
    const cmd: number[] = [];
    // CPU time of each process too (both sides carry the same preloaded reporter): on a busy
    // machine the wall-clock difference mostly measures waiting for a core.
    const nodeCpu: number[] = [];
    const cmdCpu: number[] = [];
    await timeSpawn(process.execPath, c.args); // warm the compile cache and the worker, untimed
    for (let i = 0; i < rounds; i++) {
      // Alternate which goes first, so a noisy moment does not always hit the same side.
      const runNode = async () => {
        const n = await timeNode(['-e', '0']);
        node.push(n.ms);
        nodeCpu.push(n.cpuMs);
      };
      const runCmd = async () => {
        const r = await timeNode(c.args);
        if (r.status !== 0) throw new Error(`${c.figure} failed (exit ${r.status}): ${r.stderr.trim().split('\n')[0]}`);
        cmd.push(r.ms);
        cmdCpu.push(r.cpuMs);
      };
      if (i % 2 === 0) {
        await runNode();
        await runCmd();
      } else {
        await runCmd();
        await runNode();
      }
    }
    const delta = median(cmd) - median(node);
    const cpuDelta = median(cmdCpu) - median(nodeCpu);
    raw[c.id] = {
      nodeMs: node.map((x) => round(x)),
      commandMs: cmd.map((x) => round(x)),
      nodeCpuMs: nodeCpu.map((x) => round(x)),
      commandCpuMs: cmdCpu.map((x) => round(x)),
      command: summarize(cmd),
      node: summarize(node),
    };
    rows.push({
      id: c.id,
      figure: c.figure,
      measured: median(cmd),
      reference: median(node),
      unit: 'ms',
      referenceLabel: 'node -e 0',
      ratio: median(cmd) / median(node),
      target: `≤ +${READ_BUDGET_MS} ms`,
      verdict: delta <= READ_BUDGET_MS ? 'pass' : 'miss',
      note: `${signed(delta)} ms over bare node, ${rounds} interleaved spawns; by CPU time ${signed(cpuDelta)} ms (${round(median(cmdCpu))} vs ${round(median(nodeCpu))} ms)`,
    });
  }
  return rows;
}

/** `+12.3` / `−4.6`: a difference that can go either way in the noise. */
function signed(ms: number): string {
  return `${ms < 0 ? '−' : '+'}${round(Math.abs(ms), 1)}`;
}

async function validateUnavailable(): Promise<string | undefined> {
  if (!existsSync(seedFile)) return `seed ${seedFile} not found (examples/seeds/ is part of the repository)`;
  if (!existsSync(connectOpenApi)) return 'openapi/kafka-connect.yaml does not exist yet';
  const help = await timeSpawn(process.execPath, [cli, 'workflow', 'validate', '--help']);
  if (help.status !== 0) return '`offsetctl workflow validate` is not available yet';
  return undefined;
}
