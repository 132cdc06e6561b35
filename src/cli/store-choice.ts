// Which store a command uses, and opening it. --store, then OFFSETCTL_STORE, then the store of
// the context that applies (the one --context names, or the current one for its own URL: the
// rule credentials follow, connection.ts); without any, the state folder's SQLite file. The
// password is never part of the choice: `--store-password-env` (or the context's
// store-password-env) names a variable, else libpq's PGPASSWORD and .pgpass apply. Whatever
// password is read is registered for masking first, so no line offsetctl prints can show it.
import { registerSecret } from '../http/redact.js';
import type { Store } from '../store/index.js';
import type { StoreChoice } from '../store/index.js';
import { OpsError } from '../ops/errors.js';
import type { ConnectionContext } from './config-file.js';
import { currentIO } from './io.js';
import { readVersion } from './package-version.js';
import * as load from './load.js';

export interface StoreFlags {
  store?: string;
  storePasswordEnv?: string;
  stateDir?: string;
  context?: string;
}

export function storeChoice(opts: StoreFlags, ctx: Pick<ConnectionContext, 'store' | 'storePasswordEnv'> | undefined, stateDir: string, env: NodeJS.ProcessEnv = currentIO().env): StoreChoice {
  const fromFlag = opts.store !== undefined && opts.store !== '';
  const store = fromFlag ? opts.store : env.OFFSETCTL_STORE || ctx?.store;
  // A password typed into the URL is refused when the store opens; masked from here on.
  const typed = store ? /^postgres(?:ql)?:\/\/[^/@:]*:([^/@]*)@/i.exec(store)?.[1] : undefined;
  if (typed) {
    registerSecret(typed);
    try {
      registerSecret(decodeURIComponent(typed));
    } catch {
      // not URL-encoded: masked as typed
    }
  }
  const passwordEnv = opts.storePasswordEnv ?? (fromFlag || env.OFFSETCTL_STORE ? undefined : ctx?.storePasswordEnv);
  if (passwordEnv !== undefined && env[passwordEnv]) registerSecret(env[passwordEnv]!);
  if (env.PGPASSWORD) registerSecret(env.PGPASSWORD);
  const lease = env.OFFSETCTL_STORE_LEASE_SECONDS;
  let leaseSeconds: number | undefined;
  if (lease !== undefined && lease !== '') {
    leaseSeconds = Number(lease);
    if (!Number.isInteger(leaseSeconds) || leaseSeconds < 2 || leaseSeconds > 3600) {
      throw new OpsError('E_USAGE', `OFFSETCTL_STORE_LEASE_SECONDS=${lease}: the team store's lease must be a whole number of seconds from 2 to 3600`, { field: 'OFFSETCTL_STORE_LEASE_SECONDS' });
    }
  }
  return { ...(store ? { store } : {}), stateDir, ...(passwordEnv ? { passwordEnv } : {}), ...(leaseSeconds ? { leaseSeconds } : {}) };
}

/**
 * Opens the chosen store: the IO's store when a test hands one in (one it inspects afterwards, one
 * that fails at a chosen step), else standardOpenStore.
 */
export async function openCommandStore(choice: StoreChoice, options: { migrate?: boolean } = {}): Promise<Store> {
  return (currentIO().openStore ?? standardOpenStore)(choice, options);
}

/** Opens the chosen store as this CLI (its version, `via: cli`); a team store is connected and its schema checked before this resolves. */
export async function standardOpenStore(choice: StoreChoice, options: { migrate?: boolean } = {}): Promise<Store> {
  const { openChosenStore } = await load.store();
  return openChosenStore(choice, { actor: { via: 'cli', version: readVersion() }, ...options });
}
