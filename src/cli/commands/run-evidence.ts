// `offsetctl runs show <id> --evidence`: the run's evidence as JSON (ops/audit/evidence.ts), for
// an auditor checking one change offline. Always JSON: it is a record to keep, not a page to read.
import type { ConnectionOptions } from '../connection.js';
import { runEvidence } from '../../ops/audit/index.js';
import { OpsError } from '../../ops/errors.js';
import { openHistory } from './history-actions.js';
import { stdout } from './say.js';

export async function showRunEvidence(id: string, opts: ConnectionOptions): Promise<void> {
  const { store } = await openHistory(opts);
  try {
    let evidence;
    try {
      evidence = await runEvidence(store, id);
    } catch (err) {
      if ((err as { code?: string }).code === 'E_NOT_FOUND') throw new OpsError('E_PREFLIGHT', `no run ${id} in ${store.location}: list the runs with \`offsetctl runs\``, { field: 'id' });
      throw err;
    }
    stdout(`${JSON.stringify(evidence, null, 2)}\n`);
  } finally {
    await store.close();
  }
}
