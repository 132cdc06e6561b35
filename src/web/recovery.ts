// Crash recovery: the runs a console started and did not finish (its process was killed, or on a
// team store its replica died and its lease passed) are found when a console starts, and, on a
// team store, every `intervalMs` after; each is finished or put back the way `runs resume` does
// (planResume: a cancelled run, or one that died putting its connector back, is put back, never
// made). Only runs whose holder is gone are taken (the store's lock and lease rules decide: a
// live lease is never taken over, and two consoles racing for one run find the second refused).
// Every run found is logged and shown in a banner on every page.
import type { ConsoleLog } from './observe/index.js';
import type { Jobs } from './jobs.js';
import { planResume, type RunRecord, type Store, type WebContext } from './ops-bridge.js';

/** The console's contexts as recovery needs them (app.ts's ContextSource fits). */
interface ContextSource {
  names(): Promise<string[]>;
  resolve(name: string): Promise<Pick<WebContext, 'url' | 'http' | 'kafka'>>;
}
import { redactText } from '../http/redact.js';

export interface RecoveryNote {
  runId: string;
  connector: string;
  operation: string;
  /** Who had started it. */
  startedBy: string;
  /** `recovering` while its job runs; then how it ended. */
  state: 'recovering' | 'finished' | 'put back' | 'failed' | 'left';
  text: string;
  jobId?: string;
  at: string;
}

export interface RecoveryDeps {
  store: Store;
  contexts: ContextSource;
  jobs: Jobs;
  log: ConsoleLog;
}

export class Recovery {
  readonly notes: RecoveryNote[] = [];
  readonly #deps: RecoveryDeps;
  /** Runs this process has looked at (taken over, or refused to it): not tried again. */
  readonly #seen = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  #sweeping: Promise<void> | undefined;

  constructor(deps: RecoveryDeps) {
    this.#deps = deps;
  }

  /** Sweeps now, then every `intervalMs` (a team store: another replica's runs once its lease passed). */
  start(intervalMs?: number): Promise<void> {
    const first = this.sweep();
    if (intervalMs && intervalMs > 0) {
      this.#timer = setInterval(() => void this.sweep(), intervalMs);
      this.#timer.unref();
    }
    return first;
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** One look at the store (never two at once). */
  sweep(): Promise<void> {
    this.#sweeping ??= this.#sweepOnce().finally(() => {
      this.#sweeping = undefined;
    });
    return this.#sweeping;
  }

  async #sweepOnce(): Promise<void> {
    const { store, log } = this.#deps;
    let runs: RunRecord[];
    try {
      runs = await store.listRuns({ limit: 500 });
    } catch (err) {
      log.warn({ event: 'recovery-list-failed', error: redactText((err as Error).message) }, 'interrupted runs could not be listed');
      return;
    }
    const mine = runs.filter((r) => r.status === 'running' && r.displayStatus === 'interrupted' && r.actor.via === 'console' && !this.#seen.has(r.id));
    for (const run of mine.reverse()) {
      this.#seen.add(run.id);
      await this.#recover(run);
    }
  }

  async #recover(run: RunRecord): Promise<void> {
    const { jobs, log } = this.#deps;
    const note: RecoveryNote = {
      runId: run.id, connector: run.connector, operation: run.operation, startedBy: run.actor.user, state: 'recovering', text: '', at: new Date().toISOString(),
    };
    const fields = { event: 'recovery', run: run.id, connector: run.connector, operation: run.operation, startedBy: run.actor.user };
    try {
      const ctx = await this.#contextOf(run);
      const plan = await planResume(ctx, { runId: run.id });
      const undo = plan.finishesRecovery === true;
      note.text = undo ? 'it had been cancelled: putting the connector back' : `finishing the ${run.operation}`;
      this.notes.push(note);
      log.warn({ ...fields, action: undo ? 'put-back' : 'finish' }, `interrupted run ${run.id} (${run.operation} of ${run.connector}): ${note.text}`);
      const job = jobs.start(ctx, plan, { actor: { user: `offsetctl console (recovery of a run by ${run.actor.user})`, via: 'cli' } });
      note.jobId = job.id;
      job.listeners.add((value) => {
        if ('seq' in value) return;
        const ok = value.status === 'succeeded' || value.status === 'unchanged';
        note.state = ok ? (undo ? 'put back' : 'finished') : 'failed';
        note.text = value.message;
        log.warn({ ...fields, action: 'ended', status: value.status }, `interrupted run ${run.id}: ${value.message}`);
      });
    } catch (err) {
      // Taken by another console, no longer interrupted, or not resumable (rollback is the way): said, not retried.
      note.state = 'left';
      note.text = `not recovered here: ${redactText((err as Error).message)}`;
      this.notes.push(note);
      log.warn({ ...fields, action: 'left', error: note.text }, `interrupted run ${run.id} (${run.operation} of ${run.connector}) ${note.text}`);
    }
  }

  /** The context whose URL the run used (else the starting one: planResume refuses another cluster). */
  async #contextOf(run: RunRecord): Promise<WebContext> {
    const { contexts, store } = this.#deps;
    const names = ['', ...(await contexts.names().catch(() => []))];
    let chosen: Awaited<ReturnType<ContextSource['resolve']>> | undefined;
    for (const name of names) {
      const resolved = await contexts.resolve(name).catch(() => undefined);
      if (resolved?.url === run.clusterUrl) {
        chosen = resolved;
        break;
      }
    }
    chosen ??= await contexts.resolve('');
    return { url: chosen.url, http: chosen.http, store, ...(chosen.kafka ? { kafka: chosen.kafka } : {}) };
  }

  /** The banner's sentences (newest first), or none. */
  banner(): string[] {
    return [...this.notes].reverse().slice(0, 10).map((n) => {
      const how = n.state === 'recovering' ? `${n.text}…` : `${n.state}. ${n.text}`;
      return `Interrupted run ${n.runId} (${n.operation} of ${n.connector}, started by ${n.startedBy}) found after a console stopped: ${how}`;
    });
  }
}
