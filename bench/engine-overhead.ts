// Figure 1: what the engine adds over the HTTP requests it must send. A 1,000-step counter loop
// run by `runWorkflow` against 1,000 sequential undici requests doing the same work by hand
// (send, parse the JSON body, check `done`), same server, same keep-alive agent type, rounds
// interleaved so both sides see the same machine.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Agent, request } from 'undici';
import { loadDocumentFile, loadSources, runWorkflow } from '../src/arazzo/index.js';
import { HttpClient } from '../src/http/client.js';
import { fixtures, repoRoot, type BenchOptions, type FigureResult } from './figure.js';
import { startServerProcess, timeSpawn } from './process.js';
import { median, pairedRatios, quantile, ratio, round, summarize } from './stats.js';
import { readProfileDir, topFunctions, topPackages, type ProfileLine } from './profile.js';

const STEPS = 1000;
const TARGET = 1.15;
const WARMUP = 3;
const PROFILED_LOOPS = 20;

export async function measureEngineOverhead(options: BenchOptions): Promise<FigureResult> {
  const rounds = options.quick ? 3 : 21;
  const server = await startServerProcess();
  const http = new HttpClient();
  const agent = new Agent({ keepAliveTimeout: 60_000 });
  try {
    const doc = await loadDocumentFile(resolve(fixtures, 'counter-loop.arazzo.yaml'));
    const registry = await loadSources(doc, { servers: { all: server.url } });
    let runs = 0;

    const engineLoop = async (): Promise<number> => {
      const runId = `engine-${++runs}`;
      const started = performance.now();
      const result = await runWorkflow({ registry, workflowId: 'counter-loop', inputs: { runId, limit: STEPS }, http, maxSteps: STEPS * 2 });
      const ms = performance.now() - started;
      if (result.status !== 'passed') throw new Error(`the counter loop failed: ${result.error?.code ?? ''} ${result.error?.message ?? ''}`);
      await expectCount(agent, server.url, runId);
      return ms;
    };
    // The cheapest way undici offers: the agent's own request() with origin and path already
    // split, so no URL is parsed per request (undici's top-level request(url) parses one).
    const rawLoop = async (): Promise<number> => {
      const runId = `raw-${++runs}`;
      const path = `/counter/${runId}/next?limit=${STEPS}`;
      const started = performance.now();
      for (;;) {
        const res = await agent.request({ origin: server.url, path, method: 'GET' });
        const body = (await res.body.json()) as { n: number; done: boolean };
        if (res.statusCode !== 200) throw new Error(`raw loop: status ${res.statusCode}`);
        if (body.done) break;
      }
      const ms = performance.now() - started;
      await expectCount(agent, server.url, runId);
      return ms;
    };

    // The project's HttpClient alone (no engine): splits the overhead into client and engine shares.
    const clientLoop = async (): Promise<number> => {
      const runId = `client-${++runs}`;
      const url = `${server.url}/counter/${runId}/next?limit=${STEPS}`;
      const started = performance.now();
      for (;;) {
        const res = await http.send({ method: 'GET', url });
        const body = JSON.parse(res.body.toString('utf8')) as { n: number; done: boolean };
        if (res.status !== 200) throw new Error(`client loop: status ${res.status}`);
        if (body.done) break;
      }
      const ms = performance.now() - started;
      await expectCount(agent, server.url, runId);
      return ms;
    };

    // Untimed rounds: JIT warm-up and the first connection are not what we measure (the first
    // engine loops run several times slower while V8 compiles the runner's hot paths).
    for (let i = 0; i < WARMUP; i++) {
      await engineLoop();
      await rawLoop();
      await clientLoop();
    }
    const engine: number[] = [];
    const raw: number[] = [];
    const client: number[] = [];
    for (let i = 0; i < rounds; i++) {
      // Alternate which side goes first, so neither always runs on a freshly collected heap.
      if (i % 2 === 0) {
        engine.push(await engineLoop());
        raw.push(await rawLoop());
        client.push(await clientLoop());
      } else {
        client.push(await clientLoop());
        raw.push(await rawLoop());
        engine.push(await engineLoop());
      }
    }
    const r = ratio(median(engine), median(raw));
    const perStepUs = ((median(engine) - median(raw)) / STEPS) * 1000;
    const paired = pairedRatios(engine, raw);
    const rawResult: Record<string, unknown> = {
      steps: STEPS,
      rounds,
      engineMs: engine.map((x) => round(x)),
      rawMs: raw.map((x) => round(x)),
      httpClientMs: client.map((x) => round(x)),
      httpClient: summarize(client),
      engine: summarize(engine),
      raw: summarize(raw),
      pairedRatios: paired.map((x) => round(x, 3)),
      overheadPerStepUs: round(perStepUs, 1),
    };
    let profileNote = '';
    if (r > TARGET || options.profile) {
      // The explanation a miss needs: where the engine's own time goes, by function and file.
      const profiled = await profileEngineLoop(server.url);
      rawResult['profileTop'] = profiled.byFunction;
      rawResult['profileByPackage'] = profiled.byPackage;
      const ours = profiled.byPackage.filter((p) => p.name.startsWith('dist/src/'));
      const usPerStep = (ms: number): number => round((ms * 1000) / (PROFILED_LOOPS * STEPS), 1);
      profileNote = `; profile: offsetctl code ${usPerStep(ours.reduce((sum, p) => sum + p.selfMs, 0))} µs/step self time (${ours
        .slice(0, 3)
        .map((p) => `${p.name.replace(/^dist\/src\//, '')} ${usPerStep(p.selfMs)}`)
        .join(', ')})`;
    }
    return {
      rows: [
        {
          id: '1.engine-overhead',
          figure: `engine: ${STEPS}-step loop (runWorkflow)`,
          measured: median(engine),
          reference: median(raw),
          unit: 'ms',
          referenceLabel: `${STEPS} raw undici requests`,
          ratio: r,
          target: `≤ ${TARGET}`,
          verdict: r <= TARGET ? 'pass' : 'miss',
          note: `${round(perStepUs, 1)} µs/step over raw, of which HttpClient alone ${round(((median(client) - median(raw)) / STEPS) * 1000, 1)} µs; per-round ratios: median ${round(median(paired), 3)}, p25–p75 ${round(quantile(paired, 0.25), 3)}–${round(quantile(paired, 0.75), 3)}${profileNote}`,
        },
      ],
      raw: rawResult,
    };
  } finally {
    await http.close();
    await agent.close();
    await server.stop();
  }
}

async function expectCount(agent: Agent, baseUrl: string, runId: string): Promise<void> {
  const res = await request(`${baseUrl}/counter/${runId}`, { dispatcher: agent });
  const { n } = (await res.body.json()) as { n: number };
  if (n !== STEPS) throw new Error(`run ${runId} sent ${n} requests instead of ${STEPS}`);
}

/**
 * Self time by function and by package over twenty loops in a child under `node --cpu-prof`
 * (twenty, so the steady state outweighs start-up and compilation in the profile).
 */
async function profileEngineLoop(url: string): Promise<{ byFunction: ProfileLine[]; byPackage: ProfileLine[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'offsetctl-bench-engine-prof-'));
  try {
    const run = await timeSpawn(process.execPath, [
      '--cpu-prof',
      `--cpu-prof-dir=${dir}`,
      resolve(repoRoot, 'dist', 'bench', 'engine-loop-child.js'),
      url,
      String(PROFILED_LOOPS),
    ]);
    if (run.status !== 0) throw new Error(`profiled engine loop failed: ${run.stderr.trim()}`);
    const profile = readProfileDir(dir);
    return { byFunction: topFunctions(profile, 25), byPackage: topPackages(profile, 60) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
