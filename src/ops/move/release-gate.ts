// A move of a connector that holds something only one task may hold (a Debezium PostgreSQL
// source's replication slot): the new connector is started only once the original's task has let
// go of it. The move workflow cannot read a database, so this runs in ops, before the step that
// starts the new connector (resumeConnector, or pauseConnector: a PAUSED connector gets its tasks
// too). A slot still active after the wait fails the run at that step, before the request leaves;
// the move's own undo then puts the connector back (apply-move.ts), and the account says why.
import type { Store } from '../../store/index.js';
import { awaitSlotReleased, type SourceDbSettings } from '../profiles/index.js';
import type { MoveRelease } from './plan-move.js';

const STARTING_STEPS: ReadonlySet<string> = new Set(['resumeConnector', 'pauseConnector']);

export class ReleaseGate {
  /** What the wait found, for the account of a move that went on (undefined until it ran). */
  note: string | undefined;
  /** Why the new connector was not started (the engine reports a listener's error as the step's failure, in its own words). */
  error: string | undefined;
  #ran = false;

  constructor(private readonly store: Store, private readonly release: MoveRelease, private readonly db: SourceDbSettings,
    private readonly where: { connector: string; fromUrl: string; toUrl: string }) {}

  /** Wraps the face's beforeStep: before the new connector is started, wait for the slot. */
  wrap(inner: ((stepId: string, runId: string) => Promise<void>) | undefined, signal?: AbortSignal): (stepId: string, runId: string) => Promise<void> {
    return async (stepId, runId) => {
      await inner?.(stepId, runId);
      if (!STARTING_STEPS.has(stepId) || this.#ran) return;
      this.#ran = true;
      const { slotName, database, waitMs } = this.release;
      const slot = `replication slot "${slotName}" on ${database}`;
      const fail = (why: string): never => {
        this.error = why;
        throw new Error(why);
      };
      const r = await awaitSlotReleased(this.db, slotName, { timeoutMs: waitMs, ...(signal ? { signal } : {}) }).catch((err: unknown) =>
        fail(`reading ${slot} before starting the new connector failed (${(err as Error).message}), so it was not started`));
      await this.store.updateRunContext(runId, { slotRelease: { slot: slotName, released: r.released, waitedMs: r.waitedMs, ...(r.activePid ? { activePid: r.activePid } : {}) } })
        .catch(() => undefined);
      const seconds = (r.waitedMs / 1000).toFixed(1);
      if (r.released) {
        this.note = `${slot} was ${r.exists ? 'inactive' : 'not there (Debezium creates it)'} ${seconds} s into the wait (up to ${Math.round(waitMs / 1000)} s) ` +
          `before the new connector was started`;
        return;
      }
      const pid = r.activePid !== undefined ? `pid ${r.activePid}` : 'a backend';
      fail(`${slot} was still active (held by ${pid}) after ${seconds} s: the original's task on ${this.where.fromUrl} or another client ` +
        `still streams from it, so the new connector on ${this.where.toUrl} was not started (its task would read RUNNING and never stream: "replication ` +
        `slot is active"). The connector put back needs the same slot too and streams only once ${pid} lets go: see who it is with SELECT * FROM ` +
        `pg_stat_activity WHERE pid = ${r.activePid ?? '<active_pid>'}`);
    };
  }
}
