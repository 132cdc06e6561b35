// What the move, copy, export and import commands share (move.ts, move-backup.ts,
// move-recovery.ts): the two connections (the usual one and --to), Ctrl-C as a cancel with the
// test hooks and progress lines, and how an outcome is printed.
import type { Connection, ConnectionOptions } from '../connection.js';
import { exitStatusFor, ReportedFailure } from '../exit-status.js';
import { stderr, stdout } from './say.js';
import { currentIO } from '../io.js';
import { resolveConnection, resolveConnectionOr } from '../connection.js';
import { openCommandStore } from '../store-choice.js';
import { testHooksFromEnv } from '../test-hooks.js';
import { progressPrinter } from './progress.js';
import { cliActorFor } from '../actor.js';
import { refuseIfGovernedElsewhere } from '../governance-check.js';
import * as ops from '../../ops/index.js';

/** `--to <context|url>`: a context name, else worker URL(s); the state folder and output are the command's. */
export async function resolveTarget(to: string, opts: ConnectionOptions): Promise<Connection> {
  const shared = { ...(opts.stateDir ? { stateDir: opts.stateDir } : {}), ...(opts.output ? { output: opts.output } : {}), ...(opts.timeout !== undefined ? { timeout: opts.timeout } : {}) };
  if (/^https?:\/\//i.test(to)) return resolveConnection({ ...shared, url: to }, { ...currentIO().env, OFFSETCTL_URL: '' });
  return resolveConnection({ ...shared, context: to });
}

export interface MoveFace {
  source: Connection;
  target: Connection;
  ctx: import('../../ops/index.js').OpsContext;
  to: { url: string; http: Connection['http'] };
  /** Who acts, for the audit trail: the OS user (and database login), like every change made from the CLI. */
  audit: import('../../ops/index.js').AuditScope;
  close: () => Promise<void>;
}

/** The audit scope of a command: the OS user on this host (and on a team store the database login), and the context it used. */
export async function cliAuditScope(conn: Connection, store: Pick<import('../../store/index.js').Store, 'describe'>): Promise<import('../../ops/index.js').AuditScope> {
  return { actor: await cliActorFor(store), ...(conn.contextName ? { context: conn.contextName } : {}) };
}

/**
 * A refusal (exit 2) of a move, copy or import once the store is open goes into the audit trail,
 * as runChange does for the other changes; one the run already wrote is not written twice.
 */
export async function auditRefused(face: Pick<MoveFace, 'ctx' | 'audit'>, what: { action: string; connector?: string }, err: unknown): Promise<void> {
  if (exitStatusFor(err) === 2 && !ops.wasAudited(err)) await ops.auditRefusal(face.ctx, face.audit, what, err).catch(() => undefined);
}

/** `changes`: false for what only reads (a plain export): no governance marker is read for it (governance-check.ts). */
export async function openFace(opts: ConnectionOptions, to: string | undefined, fallbackUrl?: string, changes = true): Promise<MoveFace> {
  const source = await resolveConnectionOr(opts, fallbackUrl);
  if (changes) await refuseIfGovernedElsewhere(source, opts as import('../kafka-settings.js').KafkaFlags).catch(async (err: unknown) => {
    await source.http.close();
    throw err;
  });
  const target = to === undefined ? source : await resolveTarget(to, opts);
  const store = await openCommandStore(source.store);
  return {
    source, target, ctx: { url: source.url, http: source.http, store }, to: { url: target.url, http: target.http }, audit: await cliAuditScope(source, store),
    close: async () => {
      await store.close();
      await source.http.close();
      if (target !== source) await target.http.close();
    },
  };
}

/** Ctrl-C / SIGTERM cancel the run (ops then undoes it); the test hooks of the integration tests apply. */
export async function applyWithSignals<T>(apply: (signal: AbortSignal, beforeStep: ((s: string, r: string) => Promise<void>) | undefined, onEvent: (event: { type: string }) => void) => Promise<T>, info: (text: string) => unknown): Promise<T> {
  const controller = new AbortController();
  const onSignal = (): void => controller.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    // The printer reads the engine's events and ops' own; a move's extra events pass it by.
    return await apply(controller.signal, testHooksFromEnv(), progressPrinter(info) as (event: { type: string }) => void);
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }
}

export function printOutcome(outcome: { status: string; message: string; warnings: string[] }, json: boolean, shown: readonly string[]): void {
  if (json) stdout(`${JSON.stringify(outcome, null, 2)}\n`);
  else {
    for (const w of outcome.warnings) if (!shown.includes(w)) stderr(`warning: ${w}\n`);
    if (outcome.status !== 'failed') stdout(`${outcome.message}\n`);
  }
  if (outcome.status === 'failed') throw new ReportedFailure('E_RUN_FAILED', json ? '' : outcome.message);
}

