// The store of a command that reads history only (runs, snapshots, store status/migrate/import,
// runs resume --batch): no Connect URL to pick a context by, so --context or the current context
// may name the store. Beside store-choice.ts, which connection.ts uses: no import circle.
import type { ConnectionContext } from './config-file.js';
import { storeChoice, type StoreFlags } from './store-choice.js';
import type { StoreChoice } from '../store/index.js';
import { currentIO } from './io.js';
import { resolveStateDir } from './connection.js';
import { configPath, findContext, loadConfig } from './config-file.js';

/** The store for a command that reads history only (no Connect URL): --context or the current context may name it. */
export async function historyStoreChoice(opts: StoreFlags, env: NodeJS.ProcessEnv = currentIO().env): Promise<StoreChoice> {
  const stateDir = resolveStateDir(opts.stateDir, env);
  let ctx: ConnectionContext | undefined;
  if (!opts.store && !env.OFFSETCTL_STORE) {
    const path = configPath(env);
    const config = await loadConfig(path);
    const name = opts.context ?? config.currentContext;
    if (name !== undefined && (opts.context !== undefined || config.contexts[name])) ctx = findContext(config, name, path);
  }
  return storeChoice(opts, ctx, stateDir, env);
}
