// Change requests: four-eyes approval of a saved plan. A change made where approval is required
// becomes a request in the team store (the saved plan, who asked); someone else approves or
// rejects it; once approved it is applied like a saved plan, re-checked against the cluster first
// (check.ts), and the request records the runs that applied it. Who acts is always the store's
// own actor (the database login, the console's signed-in user), never a name sent along; the
// approver must be another identity than the requester. A request expires.
import type { Actor, ActorSource, ChangeRequestRecord } from '../../store/index.js';
import type { OpsContext } from '../context.js';
import { OpsError } from '../errors.js';
import { readSavedPlan, type SavedPlan } from './saved-plan.js';
import { checkSavedPlan, DEFAULT_MAX_AGE_MS, type CheckedPlan, type CheckOptions } from './check.js';
import type { AuditScope } from '../audit/index.js';
import { auditRequestStep, stepActor } from './request-audit.js';
import { isMoveRequest, readMoveRequest, type MoveRequestDoc } from './move-request.js';
import { isImportRequest, readImportRequest, type ImportRequestDoc } from './import-request.js';
import { isExportRequest, readExportRequest, type ExportRequestDoc } from './export-request.js';
import { isAbandonRequest, readAbandonRequest, type AbandonRequestDoc } from './abandon-request.js';
import { isImportUndoRequest, readImportUndoRequest, type ImportUndoRequestDoc } from './import-undo-request.js';

/** A step's record, and the words of an audit entry that could not be written (shown as a warning). */
export type Stepped = ChangeRequestRecord & { auditWarning?: string };

export interface RequestOptions {
  now?: Date;
  /** How long the request may wait for approval and apply (default 24 h, like a saved plan). */
  expiresInMs?: number;
  /** The context whose `approval: required` made this a request. */
  contextName?: string;
  /** Who asks, as the face authenticated them (the console's sign-in); the store adds the rest. */
  actor?: ActorSource;
  /** The audit trail's actor when the face has one of its own (the console's, with issuer and groups). */
  audit?: AuditScope;
}

/** Records a saved plan as a pending change request, and that step in the audit trail. */
/** What a request holds: a saved plan, or a move's, an import's or a consistent export's document. */
type RequestedDocument = SavedPlan | MoveRequestDoc | ImportRequestDoc | ExportRequestDoc | AbandonRequestDoc | ImportUndoRequestDoc;

export async function requestChange(ctx: OpsContext, saved: RequestedDocument, options: RequestOptions = {}): Promise<Stepped> {
  const now = options.now ?? new Date();
  const expiresInMs = options.expiresInMs ?? DEFAULT_MAX_AGE_MS;
  const connectors = isMoveRequest(saved) || isAbandonRequest(saved) || isImportUndoRequest(saved) ? [saved.connector] : isImportRequest(saved) ? saved.connectors.map((c) => c.name)
    : isExportRequest(saved) ? saved.connectors : saved.plans.map((p) => p.connector);
  const request = await ctx.store.createChangeRequest({
    clusterUrl: saved.clusterUrl, clusterKey: saved.clusterKey, operation: saved.operation, connectors,
    ...(options.contextName ? { contextName: options.contextName } : {}),
    plan: saved, digest: saved.digest, expiresAt: new Date(now.getTime() + expiresInMs).toISOString(),
    ...(options.actor ? { actor: options.actor } : {}),
  }, now);
  return audited(ctx, request, 'requested', options.audit, { message: `expires ${request.expiresAt}` });
}

/**
 * The same person, as something authenticated them. A console's user signed in with OpenID
 * Connect is the pair (issuer, subject) — the name is a label that changes with an e-mail — and
 * one behind the console's proxy is the proxy's user; two such people are compared by that and
 * nothing else. The database login names a person only for the CLI: a console's users all share
 * the console's login. Across faces (or for records without a sign-in) the names are compared,
 * which refuses rather than allows when in doubt.
 */
export function sameIdentity(a: PersonOf, b: PersonOf): boolean {
  const pa = signedInPerson(a);
  const pb = signedInPerson(b);
  if (pa !== undefined && pb !== undefined) return pa === pb;
  if (a.user === b.user) return true;
  return a.via === 'cli' && b.via === 'cli' && a.dbUser !== undefined && a.dbUser === b.dbUser;
}

type PersonOf = Pick<Actor, 'user' | 'via' | 'dbUser' | 'signIn'>;

/** `oidc <issuer> <sub>`, `proxy <user>`: who a console's sign-in authenticated, or undefined (the CLI, the login link, an old record). */
function signedInPerson(a: PersonOf): string | undefined {
  if (a.via !== 'console' || !a.signIn) return undefined;
  if (a.signIn.kind === 'oidc' && a.signIn.issuer && a.signIn.subject) return `oidc ${a.signIn.issuer.replace(/\/$/, '')} ${a.signIn.subject}`;
  if (a.signIn.kind === 'proxy') return `proxy ${a.user}`;
  return undefined;
}

/** The note on a rejection made by the requester themselves (present/requests.ts shows it as withdrawn). */
export const WITHDRAWN = 'withdrawn by the requester';

export interface ReviewOptions {
  now?: Date;
  /** A rejection's reason (required). */
  reason?: string;
  actor?: ActorSource;
  audit?: AuditScope;
}

/**
 * Approves or rejects a pending request. Refused: a request that is not pending or has expired,
 * a plan whose digest no longer matches, approving one's own request, a rejection without reason.
 */
export async function reviewChange(ctx: OpsContext, id: string, decision: 'approve' | 'reject', options: ReviewOptions = {}): Promise<Stepped> {
  const now = options.now ?? new Date();
  const request = await getRequest(ctx, id, now);
  try {
    const moved = await review(ctx, request, decision, options, now);
    const last = moved.history.at(-1);
    const said = [last?.message, last?.reason].filter(Boolean).join(': ');
    return await audited(ctx, moved, decision === 'approve' ? 'approved' : 'rejected', options.audit, said ? { message: said } : {});
  } catch (err) {
    // A refused approval (one's own request, expired, moved on) is an act of its own in the trail.
    if (err instanceof OpsError) {
      const me = await ctx.store.whoAmI(options.actor).catch(() => undefined);
      if (me) await auditRequestStep(ctx, request, 'refused', stepActor(me, options.audit), { message: `${decision} refused: [${err.code}] ${err.message}` });
    }
    throw err;
  }
}

async function review(ctx: OpsContext, request: ChangeRequestRecord, decision: 'approve' | 'reject', options: ReviewOptions, now: Date): Promise<ChangeRequestRecord> {
  const id = request.id;
  if (request.displayStatus === 'expired') throw expired(request);
  if (request.status !== 'pending') throw new OpsError('E_PLAN_STALE', `change request ${id} is ${request.status}${lastAct(request)}, not pending: there is nothing to ${decision}`, { field: 'id' });
  if (decision === 'reject') {
    const reason = options.reason?.trim() ?? '';
    if (reason === '') throw new OpsError('E_USAGE', `rejecting change request ${id} needs a reason (--reason "...")`, { field: 'reason' });
    // The requester may take their own request back, but that is no review: it is recorded (and
    // shown) as withdrawn by the requester, not as someone else's rejection.
    const own = sameIdentity(await ctx.store.whoAmI(options.actor), request.requestedBy);
    const note = own ? { message: WITHDRAWN } : {};
    return move(ctx, id, { from: ['pending'], to: 'rejected', reason, ...note, ...(options.actor ? { actor: options.actor } : {}) }, now);
  }
  // The plan approved is the plan applied: it must still be the document that was requested.
  if (isMoveRequest(request.plan)) requestedMove(request);
  else if (isImportRequest(request.plan)) requestedImport(request);
  else if (isExportRequest(request.plan)) requestedExport(request);
  else if (isAbandonRequest(request.plan)) requestedAbandon(request);
  else if (isImportUndoRequest(request.plan)) requestedImportUndo(request);
  else requestedPlan(request);
  const me = await ctx.store.whoAmI(options.actor);
  if (sameIdentity(me, request.requestedBy)) {
    throw new OpsError('E_PLAN_STALE', `change request ${id} was made by ${request.requestedBy.user}, who is you (${me.user}${me.dbUser ? `, database user ${me.dbUser}` : ''}): a change needs the approval of someone else; nothing was approved`, { field: 'id' });
  }
  return move(ctx, id, { from: ['pending'], to: 'approved', notExpired: true, ...(options.actor ? { actor: options.actor } : {}) }, now);
}

export interface ApplyCheck {
  request: ChangeRequestRecord;
  checked: CheckedPlan;
}

/**
 * An approved request's plan checked against the cluster now, as a saved plan is (identity,
 * offsets that moved, a plan applied before); the age limit is the request's expiry.
 */
export async function checkApprovedChange(ctx: OpsContext, id: string, options: Omit<CheckOptions, 'maxAgeMs'> = {}): Promise<ApplyCheck> {
  const now = options.now ?? new Date();
  const request = await approved(ctx, id, now);
  const saved = requestedPlan(request);
  const maxAgeMs = Date.parse(request.expiresAt) - Date.parse(saved.plannedAt);
  const checked = await checkSavedPlan(ctx, saved, { ...options, now, maxAgeMs });
  return { request, checked };
}

/** An approved move, copy or undo of a move, its document checked; the face plans it again and checks it (checkMoveRequest). */
export async function approvedMove(ctx: Pick<OpsContext, 'store'>, id: string, now = new Date()): Promise<Approved<MoveRequestDoc>> {
  const request = await approved(ctx, id, now);
  return { request, doc: requestedMove(request) };
}

/** An approved import, its document checked; the face plans it again and checks it (checkImportRequest). */
export async function approvedImport(ctx: Pick<OpsContext, 'store'>, id: string, now = new Date()): Promise<Approved<ImportRequestDoc>> {
  const request = await approved(ctx, id, now);
  return { request, doc: requestedImport(request) };
}

/** An approved consistent export, its document checked; the face checks the cluster (checkExportRequest) and exports. */
export async function approvedExport(ctx: Pick<OpsContext, 'store'>, id: string, now = new Date()): Promise<Approved<ExportRequestDoc>> {
  const request = await approved(ctx, id, now);
  return { request, doc: requestedExport(request) };
}

/** An approved abandon of a run, its document checked; the face finds the run again and checks it (checkAbandonRequest). */
export async function approvedAbandon(ctx: Pick<OpsContext, 'store'>, id: string, now = new Date()): Promise<Approved<AbandonRequestDoc>> {
  const request = await approved(ctx, id, now);
  return { request, doc: requestedAbandon(request) };
}

/** An approved undo of an import, its document checked; the face finds the import again and checks it (checkImportUndoRequest). */
export async function approvedImportUndo(ctx: Pick<OpsContext, 'store'>, id: string, now = new Date()): Promise<Approved<ImportUndoRequestDoc>> {
  const request = await approved(ctx, id, now);
  return { request, doc: requestedImportUndo(request) };
}

type Approved<D> = { request: ChangeRequestRecord; doc: D };

function digestMismatch(request: ChangeRequestRecord, digest: string): OpsError {
  const why = `its document has digest ${digest}, but the request was made for ${request.digest}; nothing was changed`;
  return new OpsError('E_PLAN_INVALID', `change request ${request.id}: ${why}`, { field: 'digest' });
}

async function approved(ctx: Pick<OpsContext, 'store'>, id: string, now: Date): Promise<ChangeRequestRecord> {
  const request = await getRequest(ctx, id, now);
  if (request.displayStatus === 'expired') throw expired(request);
  if (request.status !== 'approved') {
    const hint = request.status === 'pending' ? ': it needs the approval of someone other than its requester first (`offsetctl changes approve`)' : '';
    const why = `change request ${id} is ${request.status}${lastAct(request)}, not approved${hint}; nothing was changed`;
    throw new OpsError('E_PLAN_STALE', why, { field: 'id' });
  }
  return request;
}

/** Marks an approved request as being applied (only one applier wins), before any connector changes. */
export async function startApplying(ctx: OpsContext, id: string, options: { now?: Date; actor?: ActorSource; audit?: AuditScope } = {}): Promise<Stepped> {
  const moved = await move(ctx, id, { from: ['approved'], to: 'applying', notExpired: true, ...(options.actor ? { actor: options.actor } : {}) }, options.now ?? new Date());
  return audited(ctx, moved, 'applying', options.audit);
}

/** Records how applying ended: the runs, the batch, the outcome's words. */
export async function finishApplying(ctx: OpsContext, id: string, result: { succeeded: boolean; runIds: string[]; batchId?: string; message: string; actor?: ActorSource; audit?: AuditScope }): Promise<Stepped> {
  const moved = await move(ctx, id, {
    from: ['applying'], to: result.succeeded ? 'applied' : 'failed', runIds: result.runIds, message: result.message,
    ...(result.batchId ? { batchId: result.batchId } : {}), ...(result.actor ? { actor: result.actor } : {}),
  }, new Date());
  return audited(ctx, moved, result.succeeded ? 'applied' : 'failed', result.audit, { message: result.message, runIds: result.runIds });
}

/** The step's audit entries, under the actor the store recorded for it (its last history line). */
async function audited(ctx: OpsContext, request: ChangeRequestRecord, step: 'requested' | 'approved' | 'rejected' | 'applying' | 'applied' | 'failed', scope: AuditScope | undefined, detail: { message?: string; runIds?: string[] } = {}): Promise<Stepped> {
  const actor = request.history.at(-1)?.actor ?? request.requestedBy;
  const auditWarning = await auditRequestStep(ctx, request, step, stepActor(actor, scope), { ...detail, ...(scope?.context ? { context: scope.context } : {}) });
  return auditWarning ? { ...request, auditWarning } : request;
}

/** The saved plan a request holds, its digest checked again (the store row could have been edited). */
export function requestedPlan(request: ChangeRequestRecord): SavedPlan {
  if (isMoveRequest(request.plan) || isImportRequest(request.plan) || isExportRequest(request.plan) || isAbandonRequest(request.plan) || isImportUndoRequest(request.plan)) {
    const how = `it is applied from the CLI, \`offsetctl changes apply ${request.id}\`; nothing was changed`;
    const article = /^[aeiou]/.test(request.operation) ? 'an' : 'a';
    throw new OpsError('E_USAGE', `change request ${request.id} is ${article} ${request.operation}: ${how}`, { field: 'id' });
  }
  const saved = readSavedPlan(request.plan, `change request ${request.id}`);
  if (saved.digest !== request.digest) {
    throw new OpsError('E_PLAN_INVALID', `change request ${request.id}: its plan has digest ${saved.digest}, but the request was made for ${request.digest}; nothing was changed`, { field: 'digest' });
  }
  return saved;
}

/** The move request's document, its digest checked against the content and the request's. */
export function requestedMove(request: ChangeRequestRecord): MoveRequestDoc {
  const doc = readMoveRequest(request.plan, `change request ${request.id}`);
  if (doc.digest !== request.digest) {
    throw digestMismatch(request, doc.digest);
  }
  return doc;
}

/** The import request's document, its digest checked against the content and the request's. */
export function requestedImport(request: ChangeRequestRecord): ImportRequestDoc {
  const doc = readImportRequest(request.plan, `change request ${request.id}`);
  if (doc.digest !== request.digest) {
    throw digestMismatch(request, doc.digest);
  }
  return doc;
}

function requestedExport(request: ChangeRequestRecord): ExportRequestDoc {
  const doc = readExportRequest(request.plan, `change request ${request.id}`);
  if (doc.digest !== request.digest) throw digestMismatch(request, doc.digest);
  return doc;
}

function requestedAbandon(request: ChangeRequestRecord): AbandonRequestDoc {
  const doc = readAbandonRequest(request.plan, `change request ${request.id}`);
  if (doc.digest !== request.digest) throw digestMismatch(request, doc.digest);
  return doc;
}

function requestedImportUndo(request: ChangeRequestRecord): ImportUndoRequestDoc {
  const doc = readImportUndoRequest(request.plan, `change request ${request.id}`);
  if (doc.digest !== request.digest) throw digestMismatch(request, doc.digest);
  return doc;
}

async function getRequest(ctx: Pick<OpsContext, 'store'>, id: string, now: Date): Promise<ChangeRequestRecord> {
  try {
    return await ctx.store.getChangeRequest(id, now);
  } catch (err) {
    if ((err as { code?: string }).code === 'E_NOT_FOUND') throw new OpsError('E_PREFLIGHT', (err as Error).message, { field: 'id', cause: err });
    throw err;
  }
}

async function move(ctx: OpsContext, id: string, change: Parameters<OpsContext['store']['moveChangeRequest']>[1], now: Date): Promise<ChangeRequestRecord> {
  try {
    return await ctx.store.moveChangeRequest(id, change, now);
  } catch (err) {
    // Someone else moved it first, or it expired meanwhile: a refusal, nothing changed.
    if ((err as { code?: string }).code === 'E_CHANGED') throw new OpsError('E_PLAN_STALE', (err as Error).message, { field: 'id', cause: err });
    throw err;
  }
}

function expired(request: ChangeRequestRecord): OpsError {
  return new OpsError('E_PLAN_STALE', `change request ${request.id} expired at ${request.expiresAt} (requested by ${request.requestedBy.user} at ${request.requestedAt}); nothing was changed: make the change again to request it anew`, { field: 'id' });
}

function lastAct(request: ChangeRequestRecord): string {
  const last = request.history.at(-1);
  return last && last.action !== 'requested' ? ` (${last.action} by ${last.actor.user} at ${last.at}${last.reason ? `: ${last.reason}` : ''})` : '';
}
