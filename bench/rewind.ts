// Figure 5: a rewind on the sandbox. Wall time of `offsetctl rewind` (whole process) against
// the time Kafka Connect itself needs: every request's round trip (dated by a recording proxy in
// front of the worker) plus the server-side waits (stop → STOPPED with no tasks, resume →
// RUNNING) as seen by a 25 ms watcher of our own. offsetctl's share is what is left. The run
// journal (`runs show`) says when offsetctl's polling noticed each state change.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, skippedRow, type BenchOptions, type FigureResult, type FigureRow } from './figure.js';
import {
  createFileSource,
  deleteConnector,
  getStatus,
  isRunning,
  isStopped,
  waitFor,
  watchStatus,
  type ConnectorStatus,
  type StatusSample,
} from './connect-watch.js';
import { explainCommand, type CommandExplanation } from './explain-command.js';
import { timeNode, timeSpawn } from './process.js';
import { startRecordingProxy, type RecordingProxy } from './recording-proxy.js';
import { median, round, unionLength } from './stats.js';

const SHARE_TARGET = 0.1;
const NOTICE_TARGET_MS = 250;

interface JournalEvent {
  at: string;
  type: string;
  stepId?: string;
  detail: Record<string, unknown>;
}

interface RoundResult {
  wallMs: number;
  connectMs: number;
  ownMs: number;
  share: number;
  stopWaitMs: number;
  resumeWaitMs: number;
  noticeStoppedMs: number;
  noticeRunningMs: number;
  beforeWorkflowMs: number;
  /** Connect's part of the time before the workflow starts (pre-flight reads). */
  preflightConnectMs: number;
  afterWorkflowMs: number;
  requests: number;
  /** offsetctl's own CPU time (user + system): what it costs when the machine is not busy. */
  cpuMs: number;
  journalFrom: 'cli' | 'store';
}

export async function measureRewind(options: BenchOptions): Promise<FigureResult> {
  const id = '5.rewind';
  const label = 'rewind on the sandbox';
  const target = `own share < ${SHARE_TARGET * 100}%`;
  const help = await timeSpawn(process.execPath, [cli, 'rewind', '--help']);
  if (help.status !== 0) return { rows: [skippedRow(id, label, target, '`offsetctl rewind` is not available')], raw: {} };
  let worker = await runningWorker();
  let startedSandbox = false;
  if (worker === undefined && options.withSandbox) {
    options.log('  starting the sandbox (--with-sandbox) …');
    const up = await timeSpawn(process.execPath, [cli, 'sandbox', 'up'], { timeoutMs: 600_000 });
    if (up.status !== 0) return { rows: [skippedRow(id, label, target, `sandbox up failed: ${up.stderr.trim().split('\n').pop() ?? ''}`)], raw: {} };
    startedSandbox = true;
    worker = await runningWorker();
  }
  if (worker === undefined)
    return { rows: [skippedRow(id, label, target, 'the sandbox is not running (`offsetctl sandbox up`, or pass --with-sandbox)')], raw: {} };

  const dir = mkdtempSync(join(tmpdir(), 'offsetctl-bench-rewind-'));
  const name = `bench-rewind-${process.pid}-${Date.now().toString(36)}`;
  const source = join(dir, 'source.txt');
  writeFileSync(source, Array.from({ length: 200 }, (_, i) => `line ${i}`).join('\n') + '\n');
  // Each rewind goes to another line start ("line 0\n" .. "line 9\n" are 7 bytes each): the
  // connector commits its read position only every offset flush interval, so rewinding to the
  // same position again would find nothing to change (and rightly do nothing).
  let rewinds = 0;
  const nextOffsetsFile = (): string => {
    const file = join(dir, `offsets-${rewinds}.json`);
    writeFileSync(file, JSON.stringify({ offsets: [{ partition: { filename: source }, offset: { position: 7 * (rewinds++ % 10) } }] }));
    return file;
  };
  const stateDir = join(dir, 'state');
  const rounds: RoundResult[] = [];
  const proxy = await startRecordingProxy(worker);
  let explanation: CommandExplanation | undefined;
  let cold: RoundResult | undefined;
  try {
    await createFileSource(worker, name, source, name);
    // One untimed rewind first, as every other figure warms up: it creates the state folder
    // (SQLite schema, document cache) and fills Node's compile cache, which an operator's first
    // run pays once. Its figures are kept apart (raw.coldRound), not in the medians.
    if (!options.quick) {
      cold = await rewindOnce(worker, proxy, name, nextOffsetsFile(), stateDir);
      options.log(`  rewind warm-up (cold state folder): wall ${round(cold.wallMs, 0)} ms, own share ${round(cold.share * 100, 1)}%`);
      await waitFor(
        async () => {
          const s = await getStatus(worker!, name);
          return s !== undefined && isRunning(s);
        },
        60_000,
        `connector ${name} RUNNING again`,
      );
    }
    const count = options.quick ? 1 : 5;
    for (let i = 0; i < count; i++) {
      rounds.push(await rewindOnce(worker, proxy, name, nextOffsetsFile(), stateDir));
      options.log(`  rewind round ${i + 1}/${count}: wall ${round(rounds[i]!.wallMs, 0)} ms, Connect ${round(rounds[i]!.connectMs, 0)} ms`);
      // The next round starts from a connector that is back to work.
      await waitFor(
        async () => {
          const s = await getStatus(worker!, name);
          return s !== undefined && isRunning(s);
        },
        60_000,
        `connector ${name} RUNNING again`,
      );
    }
    if (median(rounds.map((r) => r.share)) >= SHARE_TARGET || options.profile) {
      // One more rewind under --cpu-prof: which imports and functions the own share is made of.
      explanation = await explainCommand(rewindArgs(proxy.url, name, nextOffsetsFile(), stateDir), 8);
      proxy.take();
    }
  } finally {
    await proxy.close();
    await deleteConnector(worker, name);
    rmSync(dir, { recursive: true, force: true });
    if (startedSandbox) await timeSpawn(process.execPath, [cli, 'sandbox', 'down'], { timeoutMs: 120_000 });
  }
  const pick = (k: keyof RoundResult): number => median(rounds.map((r) => r[k] as number));
  const share = pick('share');
  const notice = Math.max(pick('noticeStoppedMs'), pick('noticeRunningMs'));
  const rows: FigureRow[] = [
    {
      id: '5.rewind-share',
      figure: 'rewind: offsetctl own share of wall time',
      measured: pick('wallMs'),
      reference: pick('connectMs'),
      unit: 'ms',
      referenceLabel: 'Kafka Connect requests + waits',
      ratio: pick('wallMs') / pick('connectMs'),
      target,
      verdict: share < SHARE_TARGET ? 'pass' : 'miss',
      note:
        `own share ${round(share * 100, 1)}% (${round(pick('ownMs'), 0)} ms): before the workflow starts ${round(pick('beforeWorkflowMs'), 0)} ms (of which Connect ${round(pick('preflightConnectMs'), 0)} ms), after it ends ${round(pick('afterWorkflowMs'), 0)} ms; Connect waits: stop ${round(pick('stopWaitMs'), 0)} ms, resume ${round(pick('resumeWaitMs'), 0)} ms; offsetctl CPU time ${round(pick('cpuMs'), 0)} ms = ${round((pick('cpuMs') / pick('wallMs')) * 100, 1)}% of wall; median of ${rounds.length} rounds (${rounds.map((r) => `${round(r.share * 100, 1)}%`).join(', ')})${cold ? `, after an untimed first run on a new state folder (${round(cold.share * 100, 1)}%)` : ''}; Node ${process.version}` +
        (explanation
          ? `; Node's module loader ${round(explanation.moduleLoaderShare * 100, 0)}% of busy CPU; heaviest imports alone: ${explanation.imports
              .slice(0, 3)
              .map((x) => `${x.spec} ${round(x.ms, 0)} ms`)
              .join(', ')}`
          : ''),
    },
    {
      id: '5.rewind-notice',
      figure: 'rewind: polling notices a state change',
      measured: notice,
      reference: null,
      unit: 'ms',
      referenceLabel: '',
      ratio: null,
      target: `≤ ${NOTICE_TARGET_MS} ms`,
      verdict: notice <= NOTICE_TARGET_MS ? 'pass' : 'miss',
      note: `after the 25 ms watcher saw it: STOPPED +${round(pick('noticeStoppedMs'), 0)} ms, RUNNING +${round(pick('noticeRunningMs'), 0)} ms (medians)`,
    },
  ];
  const roundRaw = (r: RoundResult): Record<string, unknown> =>
    Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'number' ? round(v, 3) : v]));
  return {
    rows,
    raw: {
      worker,
      connector: name,
      ...(cold ? { coldRound: roundRaw(cold) } : {}),
      ...(explanation ? { rewindProfile: explanation } : {}),
      rounds: rounds.map(roundRaw),
    },
  };
}

async function runningWorker(): Promise<string | undefined> {
  const s = await timeSpawn(process.execPath, [cli, 'sandbox', 'status', '--output', 'json'], { timeoutMs: 30_000 });
  try {
    const status = JSON.parse(s.stdout) as { running?: boolean; connect?: string[] };
    return status.running === true ? status.connect?.[0] : undefined;
  } catch {
    return undefined;
  }
}

function rewindArgs(url: string, name: string, offsetsFile: string, stateDir: string): string[] {
  return [cli, 'rewind', name, '--offsets', offsetsFile, '--yes', '--output', 'json', '--url', url, '--state-dir', stateDir];
}

async function rewindOnce(worker: string, proxy: RecordingProxy, name: string, offsetsFile: string, stateDir: string): Promise<RoundResult> {
  const watcher = watchStatus(worker, name);
  proxy.take();
  const wallStart = Date.now();
  const run = await timeNode(rewindArgs(proxy.url, name, offsetsFile, stateDir), { timeoutMs: 180_000 });
  const wallEnd = Date.now();
  const samples = await watcher.stop();
  const forwarded = proxy.take();
  let outcome: { runId?: string; status?: string };
  try {
    outcome = JSON.parse(run.stdout) as typeof outcome;
  } catch {
    throw new Error(`offsetctl rewind printed no JSON (exit ${run.status}): ${run.stderr.trim().split('\n').slice(-3).join(' | ')}`);
  }
  if (run.status !== 0 || outcome.status !== 'succeeded' || !outcome.runId)
    throw new Error(`offsetctl rewind did not succeed (exit ${run.status}, status ${outcome.status ?? '?'})`);
  const { events, from } = await readJournal(outcome.runId, stateDir);
  return { ...analyse(events, samples, forwarded, wallStart, wallEnd, from), cpuMs: run.cpuMs };
}

/** The run's journal through `offsetctl runs show --output json`, else straight from the store. */
async function readJournal(runId: string, stateDir: string): Promise<{ events: JournalEvent[]; from: 'cli' | 'store' }> {
  const shown = await timeSpawn(process.execPath, [cli, 'runs', 'show', runId, '--output', 'json', '--state-dir', stateDir], {
    env: { ...process.env, OFFSETCTL_STATE_DIR: stateDir },
  });
  try {
    const json = JSON.parse(shown.stdout) as { events?: JournalEvent[] };
    if (Array.isArray(json.events)) return { events: json.events, from: 'cli' };
  } catch {
    // `runs show` printed text: see BENCHMARKS.md (figure 5) for why the store is read directly.
  }
  const { openStore } = await import('../src/store/index.js');
  const store = openStore(stateDir);
  try {
    return { events: (await store.eventsOf(runId)) as JournalEvent[], from: 'store' };
  } finally {
    await store.close();
  }
}

function analyse(
  events: JournalEvent[],
  samples: StatusSample[],
  forwarded: Array<[number, number]>,
  wallStart: number,
  wallEnd: number,
  from: 'cli' | 'store',
): Omit<RoundResult, 'cpuMs'> {
  const t = (e: JournalEvent): number => Date.parse(e.at);
  const sentTo = (suffix: string): number | undefined => {
    const e = events.find((x) => x.type === 'request.sent' && x.detail['method'] === 'PUT' && String(x.detail['url']).endsWith(suffix));
    return e ? t(e) : undefined;
  };
  const stopSent = sentTo('/stop');
  const resumeSent = sentTo('/resume');
  if (stopSent === undefined || resumeSent === undefined)
    throw new Error('the journal has no stop or resume request: did the rewind leave the connector stopped?');
  const stoppedAt = samples.find((s) => s.at > stopSent && s.stopped)?.at;
  const runningAt = samples.find((s) => s.at > resumeSent && s.running)?.at;
  if (stoppedAt === undefined || runningAt === undefined) throw new Error('the status watcher never saw STOPPED and RUNNING');

  // Time Connect owns: every request the proxy forwarded (pre-flight included), and the two
  // transitions from the request until the watcher saw the new state.
  const connectMs = unionLength([[stopSent, stoppedAt], [resumeSent, runningAt], ...forwarded]);
  const wallMs = wallEnd - wallStart;

  // When offsetctl's own polling saw each state: the first response after the request showing it.
  const seen = (after: number, test: (s: ConnectorStatus) => boolean): number | undefined => {
    const e = events.find((x) => {
      if (x.type !== 'response.received' || t(x) <= after) return false;
      const status = parseStatus(x.detail['body']);
      return status !== undefined && test(status);
    });
    return e ? t(e) : undefined;
  };
  const noticedStopped = seen(stopSent, isStopped);
  const noticedRunning = seen(resumeSent, isRunning);
  const started = events.find((e) => e.type === 'workflow.started');
  const finished = [...events].reverse().find((e) => e.type === 'workflow.finished');
  const workflowStart = started ? t(started) : wallEnd;
  return {
    wallMs,
    connectMs,
    ownMs: wallMs - connectMs,
    share: (wallMs - connectMs) / wallMs,
    stopWaitMs: stoppedAt - stopSent,
    resumeWaitMs: runningAt - resumeSent,
    noticeStoppedMs: noticedStopped === undefined ? Number.NaN : noticedStopped - stoppedAt,
    noticeRunningMs: noticedRunning === undefined ? Number.NaN : noticedRunning - runningAt,
    beforeWorkflowMs: started ? t(started) - wallStart : Number.NaN,
    afterWorkflowMs: finished ? wallEnd - t(finished) : Number.NaN,
    preflightConnectMs: unionLength(forwarded.filter(([a]) => a < workflowStart).map(([a, b]) => [a, Math.min(b, workflowStart)] as [number, number])),
    requests: forwarded.length,
    journalFrom: from,
  };
}

function parseStatus(body: unknown): ConnectorStatus | undefined {
  if (typeof body !== 'string') return undefined;
  try {
    const s = JSON.parse(body) as ConnectorStatus;
    return s && typeof s === 'object' && s.connector && Array.isArray(s.tasks) ? s : undefined;
  } catch {
    return undefined;
  }
}
