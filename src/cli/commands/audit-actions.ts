// The actions of `audit` and `audit verify` (registered in audit.ts and audit-verify.ts). Loaded only
// through their door (load.auditActions()), so they import what they need statically.
import { OpsError } from '../../ops/errors.js';
import type { AuditOptions } from './audit.js';
import type { ConnectionOptions } from '../connection.js';
import { parseAge, verifyStoreAudit } from '../../store/index.js';
import { renderTable } from '../render/table.js';
import { auditDetail } from '../render/audit.js';
import { openHistory } from './history-actions.js';
import { stdout } from './say.js';
import { currentIO } from '../io.js';

export async function listAudit(opts: AuditOptions): Promise<void> {
  let since: Date | undefined;
  if (opts.since !== undefined) {
    const age = parseAge(opts.since);
    const at = /\d{4}-\d{2}-\d{2}T.*(Z|[+-]\d{2}:?\d{2})$/i.test(opts.since) ? Date.parse(opts.since) : NaN;
    if (age !== undefined) since = new Date(currentIO().now() - age);
    else if (!Number.isNaN(at)) since = new Date(at);
    else throw new OpsError('E_USAGE', `--since ${JSON.stringify(opts.since)}: give an ISO time with a zone (2026-11-30T09:00:00Z) or an age (90m, 12h, 7d)`, { field: 'since' });
  }
  const limit = opts.limit === undefined ? 1000 : Number(opts.limit);
  if (!Number.isSafeInteger(limit) || limit < 1) throw new OpsError('E_USAGE', `--limit must be a whole number ≥ 1, not ${JSON.stringify(opts.limit)}`, { field: 'limit' });
  const { store, json } = await openHistory(opts);
  try {
    // The store gives the N newest, newest first; both outputs show them oldest first unless --reverse.
    const newestFirst = await store.listAudit({ ...(opts.connector ? { connector: opts.connector } : {}), ...(since ? { since } : {}), limit });
    const entries = opts.reverse ? newestFirst : newestFirst.slice().reverse();
    if (json) {
      stdout(entries.map((e) => `${JSON.stringify(e)}\n`).join(''));
      return;
    }
    if (entries.length === 0) return void stdout(`no audit entries in ${store.location}${opts.connector ? ` for ${opts.connector}` : ''}\n`);
    stdout(`${renderTable(
      ['TIME', 'USER', 'ACTION', 'OUTCOME', 'CONNECTOR', 'RUN', 'DETAIL'],
      entries.map((e) => [e.at, e.actor.user, e.action, e.outcome, e.connector ?? '', e.runId ?? '', auditDetail(e)]),
    )}\n`);
  } finally {
    await store.close();
  }
}

/** `audit verify`: the trail walked along its hash chain; exit 1 names the first broken entry. */
export async function verifyAudit(opts: ConnectionOptions): Promise<void> {
  const { store, json } = await openHistory(opts);
  try {
    const report = await verifyStoreAudit(store);
    if (json) stdout(`${JSON.stringify({ store: store.location, ...report }, null, 2)}\n`);
    else {
      const chained = report.entries - report.beforeChain;
      const before = report.beforeChain > 0 ? `; ${report.beforeChain} older entr${report.beforeChain === 1 ? 'y was' : 'ies were'} written before the chain began` : '';
      stdout(report.ok
        ? `The audit trail of ${store.location} verifies: ${chained} chained entr${chained === 1 ? 'y' : 'ies'}${before}.\n`
          + (report.head ? `Head digest: ${report.head} (record it elsewhere: entries cut off the end would leave a shorter chain that still verifies)\n` : '')
        : `The audit trail of ${store.location} DOES NOT VERIFY: ${report.firstBroken!.message}.\n`);
    }
    if (!report.ok) currentIO().exitCode = 1;
  } finally {
    await store.close();
  }
}
