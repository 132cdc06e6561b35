// Identifiers an operator can read and type: kind, UTC time to the second, 4 random hex digits.
// Sorting them as strings sorts them by time.
import { randomBytes } from 'node:crypto';

export function newId(kind: 'run' | 'snap' | 'chg' | 'audit' | 'pol', now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  // Audit entries come many to a second (a batch, sign-ins): 8 hex digits keep them apart.
  return `${kind}-${stamp}-${randomBytes(kind === 'audit' ? 4 : 2).toString('hex')}`;
}

/** The key of a row whose cluster identity is unknown (written before migration 2, or a cluster that did not say). */
export function urlKey(clusterUrl: string): string {
  return `url:${clusterUrl}`;
}
