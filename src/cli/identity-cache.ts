// The governing-context probe (governing-context.ts) asks every governing context's URL, and the
// URL at hand, which cluster it reaches: `GET /` and `GET /connectors?expand=status` each, on
// every command of an operator who has such contexts. What they answer changes rarely, so it is
// kept per URL for a short time in the state folder: each command is its own process, so a cache
// in memory would save nothing from one command to the next. Short (60 s by default,
// OFFSETCTL_IDENTITY_TTL_SECONDS, 0 turns it off) because a URL can come to reach another cluster
// (a load balancer repointed, a worker replaced on the same port): a minute bounds how long a
// stale answer can steer a command's store and rules. Only answers are kept (a URL that did not
// answer is asked again), and no secret: URLs, cluster keys and worker addresses.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { OpsError } from '../ops/errors.js';
import type { IdentityCache } from './governing-context.js';
import { currentIO } from './io.js';

const FILE = 'cluster-identities.json';
const DEFAULT_TTL_S = 60;

interface Entry {
  key: string;
  members: string[];
  /** When it was learned (ms since the epoch). */
  at: number;
}

/** The cache in `stateDir`, or undefined when OFFSETCTL_IDENTITY_TTL_SECONDS=0. */
export function identityCache(stateDir: string, env: NodeJS.ProcessEnv = currentIO().env, now: () => number = Date.now): IdentityCache | undefined {
  const raw = env.OFFSETCTL_IDENTITY_TTL_SECONDS;
  const ttlS = raw === undefined || raw === '' ? DEFAULT_TTL_S : Number(raw);
  if (!Number.isInteger(ttlS) || ttlS < 0 || ttlS > 3600) {
    throw new OpsError('E_USAGE', `OFFSETCTL_IDENTITY_TTL_SECONDS=${raw}: how long a cluster's identity is kept, a whole number of seconds from 0 (off) to 3600`, { field: 'OFFSETCTL_IDENTITY_TTL_SECONDS' });
  }
  if (ttlS === 0) return undefined;
  const path = join(stateDir, FILE);
  let entries: Record<string, Entry> = {};
  try {
    entries = JSON.parse(readFileSync(path, 'utf8')) as Record<string, Entry>;
  } catch {
    // No file yet, or an unreadable one: start empty (it is only a cache).
  }
  const fresh = (e: Entry | undefined): e is Entry => e !== undefined && typeof e.key === 'string' && Array.isArray(e.members) && now() - e.at >= 0 && now() - e.at < ttlS * 1000;
  return {
    get: (url) => {
      const e = entries[url];
      return fresh(e) ? { key: e.key, members: e.members } : undefined;
    },
    put: (url, seen) => {
      entries = Object.fromEntries(Object.entries(entries).filter(([, e]) => fresh(e)));
      entries[url] = { key: seen.key, members: seen.members, at: now() };
      try {
        mkdirSync(stateDir, { recursive: true, mode: 0o700 });
        const tmp = `${path}.${process.pid}.tmp`;
        writeFileSync(tmp, JSON.stringify(entries), { mode: 0o600 });
        renameSync(tmp, path);
      } catch {
        // A state folder that cannot be written: the probe is simply asked again next time.
      }
    },
  };
}
