// Figure 2: offsetctl against Redocly's `respect`, whole process each (start-up, document
// loading, the requests, the report), same Arazzo document, same server process.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { cli, fixtures, repoRoot, type BenchOptions, type FigureResult, type FigureRow } from './figure.js';
import { explainCommand } from './explain-command.js';
import { redoclyEnv, startServerProcess, timeNode, type TimedRun } from './process.js';
import { median, pairedRatios, ratio, round, summarize } from './stats.js';

const TARGET = 3;
const LOOP_STEPS = 1000;
const redocly = resolve(repoRoot, 'node_modules', '.bin', 'redocly');

interface Case {
  id: string;
  label: string;
  file: string;
  inputs: (runId: string) => Record<string, string>;
  rounds: number;
  /** Stop adding rounds after this long (at least two are always run): keeps `npm run bench` near 5 minutes on a busy machine. */
  budgetMs: number;
  /** Respect's JSON report of a 1,000-step loop is ~150 MB and takes longer to write than the run. */
  respectJson: boolean;
  /** For the counter loop: how many requests the server must have seen for this run id. */
  expectedCount?: number;
}

export async function measureAgainstRespect(options: BenchOptions): Promise<FigureResult> {
  const cases: Case[] = [
    {
      id: '2.respect-six-steps',
      label: 'vs respect: 6-step workflow',
      file: 'six-step.arazzo.yaml',
      inputs: (id) => ({ connectorName: id, position: '0' }),
      rounds: options.quick ? 2 : 7,
      budgetMs: 60_000,
      respectJson: true,
    },
    {
      id: '2.respect-loop',
      label: `vs respect: ${LOOP_STEPS}-step loop`,
      file: 'counter-loop.arazzo.yaml',
      inputs: (id) => ({ runId: id, limit: String(LOOP_STEPS) }),
      rounds: options.quick ? 1 : 3,
      budgetMs: 100_000,
      respectJson: false,
      expectedCount: LOOP_STEPS,
    },
  ];
  const server = await startServerProcess();
  const tmp = mkdtempSync(join(tmpdir(), 'offsetctl-bench-respect-'));
  const rows: FigureRow[] = [];
  const raw: Record<string, unknown> = { respectVersion: readRespectVersion() };
  let runs = 0;
  try {
    for (const c of cases) {
      const file = resolve(fixtures, c.file);
      const oursCpu: number[] = [];
      const theirsCpu: number[] = [];
      const runOffsetctl = async (): Promise<number> => {
        const id = `o${++runs}`;
        const run = await timeNode(offsetctlArgs(file, server.url, c.inputs(id)), { timeoutMs: 120_000 });
        oursCpu.push(run.cpuMs);
        expectSuccess('offsetctl', run, () => (JSON.parse(run.stdout) as { status?: string }).status === 'passed');
        await expectCount(server.url, id, c.expectedCount);
        return run.ms;
      };
      const runRespect = async (): Promise<number> => {
        const id = `r${++runs}`;
        const report = join(tmp, `${id}.json`);
        const args = [redocly, 'respect', file, '--server', `benchApi=${server.url}`, '--max-steps', String(LOOP_STEPS * 2)];
        for (const [k, v] of Object.entries(c.inputs(id))) args.push('--input', `${k}=${v}`);
        if (c.respectJson) args.push('-J', report);
        const run = await timeNode(args, { env: redoclyEnv(), timeoutMs: 300_000 });
        theirsCpu.push(run.cpuMs);
        expectSuccess('respect', run, () => !c.respectJson || respectPassed(report));
        await expectCount(server.url, id, c.expectedCount);
        return run.ms;
      };

      if (c.respectJson) {
        // Warm the page cache and both tools' code paths once; the loop case follows and is warm.
        await runOffsetctl();
        await runRespect();
        oursCpu.length = 0;
        theirsCpu.length = 0;
      }
      const ours: number[] = [];
      const theirs: number[] = [];
      const caseStarted = performance.now();
      for (let i = 0; i < c.rounds; i++) {
        if (i >= 2 && performance.now() - caseStarted > c.budgetMs) {
          options.log(`  ${c.label}: stopping after ${i} rounds (time budget)`);
          break;
        }
        if (i % 2 === 0) {
          ours.push(await runOffsetctl());
          theirs.push(await runRespect());
        } else {
          theirs.push(await runRespect());
          ours.push(await runOffsetctl());
        }
        options.log(`  ${c.label}: round ${i + 1}/${c.rounds}: offsetctl ${round(ours[i] ?? 0, 0)} ms, respect ${round(theirs[i] ?? 0, 0)} ms`);
      }
      // Here the ratio is "how many times faster": reference (respect) over measured (offsetctl).
      const speedup = ratio(median(theirs), median(ours));
      rows.push({
        id: c.id,
        figure: c.label,
        measured: median(ours),
        reference: median(theirs),
        unit: 'ms',
        referenceLabel: 'redocly respect, same document',
        ratio: speedup,
        target: `≥ ${TARGET}× faster`,
        verdict: speedup >= TARGET ? 'pass' : 'miss',
        note: `ratio = respect / offsetctl (speed-up), ${ours.length} interleaved rounds; by CPU time ${round(ratio(median(theirsCpu), median(oursCpu)), 2)}× (${round(median(oursCpu), 0)} vs ${round(median(theirsCpu), 0)} ms)`,
      });
      const explain = c.respectJson && (speedup < TARGET || options.profile);
      const explanation = explain ? await explainCommand(offsetctlArgs(file, server.url, c.inputs(`p${++runs}`)), 6) : undefined;
      if (explanation)
        rows[rows.length - 1]!.note +=
          `; Node's module loader ${round(explanation.moduleLoaderShare * 100, 0)}% of busy CPU; heaviest imports alone: ${explanation.imports
            .slice(0, 3)
            .map((x) => `${x.spec} ${round(x.ms, 0)} ms`)
            .join(', ')}`;
      raw[c.id] = {
        ...(explanation ? { offsetctlProfile: explanation } : {}),
        rounds: ours.length,
        offsetctlMs: ours.map((x) => round(x)),
        respectMs: theirs.map((x) => round(x)),
        offsetctlCpuMs: oursCpu.map((x) => round(x)),
        respectCpuMs: theirsCpu.map((x) => round(x)),
        offsetctl: summarize(ours),
        respect: summarize(theirs),
        pairedSpeedups: pairedRatios(theirs, ours).map((x) => round(x, 2)),
      };
    }
    return { rows, raw };
  } finally {
    await server.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

function offsetctlArgs(file: string, serverUrl: string, inputs: Record<string, string>): string[] {
  const args = [cli, 'workflow', 'run', file, '--server', serverUrl, '--max-steps', String(LOOP_STEPS * 2), '--output', 'json'];
  for (const [k, v] of Object.entries(inputs)) args.push('--input', `${k}=${v}`);
  return args;
}

function expectSuccess(tool: string, run: TimedRun, passed: () => boolean): void {
  let ok = false;
  try {
    ok = run.status === 0 && passed();
  } catch {
    ok = false;
  }
  if (!ok) {
    const tail = (run.stderr || run.stdout).trim().split('\n').slice(-3).join(' | ');
    throw new Error(`${tool} run failed (exit ${run.status ?? run.signal}): ${tail.slice(0, 400)}`);
  }
}

function respectPassed(report: string): boolean {
  const json = JSON.parse(readFileSync(report, 'utf8')) as { status?: string };
  return json.status === 'success';
}

async function expectCount(baseUrl: string, runId: string, expected: number | undefined): Promise<void> {
  if (expected === undefined) return;
  const res = await fetch(`${baseUrl}/counter/${runId}`);
  const { n } = (await res.json()) as { n: number };
  if (n !== expected) throw new Error(`run ${runId} sent ${n} counter requests instead of ${expected}`);
}

function readRespectVersion(): string {
  try {
    return (JSON.parse(readFileSync(resolve(repoRoot, 'node_modules', '@redocly', 'cli', 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}
