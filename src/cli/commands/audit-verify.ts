// `offsetctl audit verify`: walks the store's audit trail along its hash chain and names the
// first entry deleted, edited or inserted out of order (exit 1), else exit 0. The head digest it
// prints is what to record elsewhere: entries cut off the end leave an intact but shorter chain.
// Registration only; the action is in audit-actions.ts.
import type { Command } from 'commander';
import { addConnectionOptions, type ConnectionOptions } from '../connection.js';
import * as load from '../load.js';

export function registerVerify(audit: Command): void {
  addConnectionOptions(
    audit
      .command('verify')
      .description('check the audit trail\'s hash chain: names the first entry deleted, edited or inserted out of order (exit 1)'),
  // The parent `audit` takes the same connection flags, so commander may hand them to it: read both.
  ).action(async (_opts: ConnectionOptions, command: Command) => (await load.auditActions()).verifyAudit(command.optsWithGlobals() as ConnectionOptions));
}
