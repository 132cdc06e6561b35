// `offsetctl audit verify`: walks the store's audit trail along its hash chain and names the
// first entry deleted, edited or inserted out of order (exit 1), else exit 0. The head digest it
// prints is what to record elsewhere: entries cut off the end leave an intact but shorter chain.
import type { Command } from 'commander';
import { addConnectionOptions, type ConnectionOptions } from '../connection.js';
import { currentIO } from '../io.js';
import * as load from '../load.js';

export function registerVerify(audit: Command): void {
  addConnectionOptions(
    audit
      .command('verify')
      .description('check the audit trail\'s hash chain: names the first entry deleted, edited or inserted out of order (exit 1)'),
  // The parent `audit` takes the same connection flags, so commander may hand them to it: read both.
  ).action(async (_opts: ConnectionOptions, command: Command) => verifyAudit(command.optsWithGlobals() as ConnectionOptions));
}

async function verifyAudit(opts: ConnectionOptions): Promise<void> {
  const { verifyStoreAudit } = await load.store();
  const { openHistory } = await load.historyActions();
  const { stdout } = await load.say();
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
