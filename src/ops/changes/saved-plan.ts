// A plan saved as data, to be applied later and maybe by someone else (`--plan-out`, then
// `offsetctl apply <file>`; a change request keeps the same document). It holds every connector's
// plan as planning made it (identity, the offsets it was planned from, targets, diff, warnings,
// inputs), who planned it and when, and a digest: sha256 over the canonical JSON of everything
// else. The digest is tamper-evidence against accidental or casual edits, not a signature: whoever
// can edit the file can compute a new digest. Review (a pull request, an approval) is what makes
// a plan trusted; the digest makes sure the reviewed text is the text applied.
import { contentDigest } from './request-digest.js';
import { OpsError } from '../errors.js';
import type { Plan } from '../plan/index.js';

export const PLAN_FORMAT = 'offsetctl-plan/1';

/** The operations a saved plan may hold (resume finishes a run already under way: never saved). */
export type SavedOperation = 'rewind' | 'reset' | 'rollback';

/** Who made the plan, as an authenticated source says (the OS login, the team store's database user, the console's sign-in). */
export interface PlannedBy {
  /** The name shown: `alice@laptop-7`, `alice@example.com`. */
  user: string;
  via: 'cli' | 'oidc' | 'proxy' | 'login-link' | (string & {});
  osUser?: string;
  host?: string;
  /** The team store's database login (PostgreSQL `session_user`). */
  dbUser?: string;
  issuer?: string;
  subject?: string;
}

export interface SavedPlan {
  format: typeof PLAN_FORMAT;
  plannedAt: string;
  plannedBy: PlannedBy;
  operation: SavedOperation;
  /** The URL the plans were made through, and the cluster it reached. */
  clusterUrl: string;
  clusterKey: string;
  /** How the connectors were chosen, for people (`--selector '^orders-'`); one plan per connector in `plans`. */
  selection?: string;
  plans: Plan[];
  /** `sha256:<hex>` over the canonical JSON of every other field. */
  digest: string;
  /** The digest of each part (`header`, then each connector), to say which part was edited. */
  parts: Record<string, string>;
}

/** The fields of a saved plan the digest covers. */
export type SavedPlanContent = Omit<SavedPlan, 'digest' | 'parts'>;

/**
 * A saved plan of these plans (one connector, or a batch's). Refused for resume plans and for
 * plans of several clusters or operations.
 *
 * @example const doc = savePlan([plan], { plannedBy: { user: 'alice@laptop', via: 'cli' }, now: new Date() })
 */
export function savePlan(plans: readonly Plan[], meta: { plannedBy: PlannedBy; now?: Date; selection?: string }): SavedPlan {
  const first = plans[0];
  if (!first) throw new OpsError('E_USAGE', 'a saved plan needs at least one connector', { field: 'connectors' });
  for (const p of plans) {
    if (p.operation === 'resume') {
      throw new OpsError('E_USAGE', '`runs resume` finishes a run that already started (its connector may be stopped now); it is not saved for later: resume it, or undo it with `offsetctl rollback`', { field: 'plan-out' });
    }
    if (p.operation !== first.operation || p.clusterKey !== first.clusterKey) {
      throw new OpsError('E_USAGE', `a saved plan holds one operation on one cluster: ${p.connector} is a ${p.operation} on ${p.clusterKey}, ${first.connector} a ${first.operation} on ${first.clusterKey}`, { field: 'plan-out' });
    }
  }
  const content: SavedPlanContent = {
    format: PLAN_FORMAT,
    plannedAt: (meta.now ?? new Date()).toISOString(),
    plannedBy: meta.plannedBy,
    operation: first.operation as SavedOperation,
    clusterUrl: first.clusterUrl,
    clusterKey: first.clusterKey,
    ...(meta.selection ? { selection: meta.selection } : {}),
    // Through JSON once, so the digest covers exactly what a reader will see (no undefined fields).
    plans: JSON.parse(JSON.stringify(plans)) as Plan[],
  };
  return { ...content, digest: digestOf(content), parts: partDigests(content) };
}

/** `sha256:<hex>` of the canonical JSON (sorted keys) of a saved plan's content. */
export function digestOf(content: SavedPlanContent): string {
  return contentDigest(content);
}

function partDigests(content: SavedPlanContent): Record<string, string> {
  const { plans, ...header } = content;
  const parts: Record<string, string> = { header: contentDigest(header) };
  for (const p of plans) parts[`connector ${p.connector}`] = contentDigest(p);
  return parts;
}

/**
 * A saved plan as read from a file or the store: its format checked, then its digest against its
 * content (E_PLAN_INVALID naming the part that was edited), then the fields apply reads.
 */
export function readSavedPlan(doc: unknown, where: string): SavedPlan {
  if (!isObject(doc)) throw invalid(`${where} is not a saved plan (expected a JSON object written by \`--plan-out\`)`, 'plan');
  if (doc.format !== PLAN_FORMAT) {
    throw invalid(`${where}: format is ${JSON.stringify(doc.format)}, not "${PLAN_FORMAT}": not a plan written by \`--plan-out\` of this offsetctl`, 'format');
  }
  if (typeof doc.digest !== 'string') throw invalid(`${where} has no digest: not a plan written by \`--plan-out\``, 'digest');
  const { digest, parts, ...content } = doc as unknown as SavedPlan;
  if (!Array.isArray(content.plans)) throw invalid(`${where}: plans must be an array of connector plans`, 'plans');
  const actual = digestOf(content);
  if (actual !== digest) {
    const edited = isObject(parts) ? Object.entries(partDigests(content)).filter(([name, d]) => parts[name] !== d).map(([name]) => name) : [];
    const missing = isObject(parts) ? Object.keys(parts).filter((name) => !(name in partDigests(content))) : [];
    const which = [...edited, ...missing.map((m) => `${m} (removed)`)];
    throw invalid(`${where} was changed after it was written: its digest is ${digest} but its content gives ${actual}` +
      `${which.length > 0 ? ` (edited: ${which.join(', ')})` : ''}; nothing was changed. A plan is applied only as written: make a new one with --plan-out`, 'digest');
  }
  const plan = content as SavedPlan;
  if (plan.operation !== 'rewind' && plan.operation !== 'reset' && plan.operation !== 'rollback') throw invalid(`${where}: operation ${JSON.stringify(plan.operation)} cannot be applied from a saved plan`, 'operation');
  if (typeof plan.plannedAt !== 'string' || Number.isNaN(Date.parse(plan.plannedAt))) throw invalid(`${where}: plannedAt must be a time`, 'plannedAt');
  if (!isObject(plan.plannedBy) || typeof plan.plannedBy.user !== 'string') throw invalid(`${where}: plannedBy must name who planned it`, 'plannedBy');
  if (plan.plans.length === 0) throw invalid(`${where}: plans is empty`, 'plans');
  const seen = new Set<string>();
  for (const p of plan.plans) {
    if (!isObject(p) || typeof p.connector !== 'string' || p.operation !== plan.operation || !isObject(p.identity) || !Array.isArray(p.targetOffsets)
      || !Array.isArray(p.currentOffsets) || !isObject(p.inputs) || !isObject(p.diff) || !isObject(p.workflow)) {
      throw invalid(`${where}: every entry of plans must be a ${plan.operation} plan with connector, identity, currentOffsets, targetOffsets, diff, inputs and workflow`, 'plans');
    }
    if (seen.has(p.connector)) throw invalid(`${where}: ${p.connector} is planned twice`, 'plans');
    seen.add(p.connector);
  }
  return { ...plan, digest, parts: isObject(parts) ? parts as Record<string, string> : {} };
}

function invalid(message: string, field: string): OpsError {
  return new OpsError('E_PLAN_INVALID', message, { field });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
