// `offsetctl audit`: the audit trail of the store — who did what, when, on which connector, with
// the diff (console users and CLI users alike). One order for both outputs: oldest first, like a
// log (the newest at the bottom, where a terminal leaves you; JSON lines append in order:
// `offsetctl audit --since 1h -o json >> audit.jsonl`); `--reverse` turns both newest first.
// `--limit N` keeps the N newest either way.
import type { Command } from 'commander';
import { addConnectionOptions, type ConnectionOptions } from '../connection.js';
import { registerVerify } from './audit-verify.js';
import { currentIO } from '../io.js';
import { OpsError } from '../../ops/errors.js';
import * as load from '../load.js';

interface AuditOptions extends ConnectionOptions {
  connector?: string;
  since?: string;
  limit?: string;
  reverse?: boolean;
}

export function register(program: Command): void {
  const audit = program.command('audit');
  registerVerify(audit);
  addConnectionOptions(
    audit
      .option('--connector <name>', 'only entries about this connector')
      .option('--since <time>', 'only entries at or after this time: an ISO time with a zone (2026-11-30T09:00:00Z) or an age (90m, 12h, 7d)')
      .option('--limit <n>', 'at most the N newest entries (default 1000)')
      .option('--reverse', 'newest first (default: oldest first, in text and JSON alike)')
      .description('list who did what, when, on which connector, with the diff, oldest first (JSON: one entry per line)'),
  ).action(async (opts: AuditOptions) => listAudit(opts));
}

async function listAudit(opts: AuditOptions): Promise<void> {
  const { parseAge } = await load.store();
  const { openHistory } = await load.historyActions();
  const { stdout } = await load.say();
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
    const { renderTable } = await load.renderTable();
    const { auditDetail } = await load.renderAudit();
    stdout(`${renderTable(
      ['TIME', 'USER', 'ACTION', 'OUTCOME', 'CONNECTOR', 'RUN', 'DETAIL'],
      entries.map((e) => [e.at, e.actor.user, e.action, e.outcome, e.connector ?? '', e.runId ?? '', auditDetail(e)]),
    )}\n`);
  } finally {
    await store.close();
  }
}
