// `offsetctl audit`: the audit trail of the store — who did what, when, on which connector, with
// the diff (console users and CLI users alike). One order for both outputs: oldest first, like a
// log (the newest at the bottom, where a terminal leaves you; JSON lines append in order:
// `offsetctl audit --since 1h -o json >> audit.jsonl`); `--reverse` turns both newest first.
// `--limit N` keeps the N newest either way.
import type { Command } from 'commander';
import { addConnectionOptions, type ConnectionOptions } from '../connection.js';
import { registerVerify } from './audit-verify.js';
import * as load from '../load.js';

export interface AuditOptions extends ConnectionOptions {
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
  ).action(async (opts: AuditOptions) => (await load.auditActions()).listAudit(opts));
}
