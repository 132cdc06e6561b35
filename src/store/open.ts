// Which store a command uses: the team store when one is named (`--store postgres://…`,
// OFFSETCTL_STORE, a context's `store:`; the face decides the order), else the SQLite file in
// the state folder. The PostgreSQL backend is imported only when chosen.
import { StoreError } from './errors.js';
import { openSqliteStore } from './sqlite/index.js';
import type { Store, StoreOptions } from './types.js';
import * as load from './load.js';

export interface StoreChoice {
  /** A postgres:// URL, or undefined/`sqlite` for the state folder's file. */
  store?: string;
  stateDir: string;
  /** `--store-password-env`: the variable holding the team store's password. */
  passwordEnv?: string;
  /** The team store's lease length (seconds). */
  leaseSeconds?: number;
}

export function isTeamStore(choice: Pick<StoreChoice, 'store'>): boolean {
  return choice.store !== undefined && choice.store !== '' && choice.store !== 'sqlite';
}

export async function openChosenStore(choice: StoreChoice, options: StoreOptions & { migrate?: boolean } = {}): Promise<Store> {
  if (!isTeamStore(choice)) {
    if (choice.passwordEnv) throw new StoreError('E_STORE_USAGE', '--store-password-env is for a team store: name one with --store postgres://USER@HOST/DATABASE');
    return openSqliteStore(choice.stateDir, options);
  }
  const url = choice.store!;
  const { isPostgresUrl, openPostgresStore, redactUrl } = await load.postgresBackend();
  if (!isPostgresUrl(url)) {
    throw new StoreError('E_STORE_USAGE', `--store: ${JSON.stringify(redactUrl(url))} is not a store: write postgres://USER@HOST:PORT/DATABASE for a team store, or leave it out for the state folder's SQLite file`);
  }
  return openPostgresStore(url, { ...options, ...(choice.passwordEnv ? { passwordEnv: choice.passwordEnv } : {}), ...(choice.leaseSeconds ? { leaseSeconds: choice.leaseSeconds } : {}) });
}
