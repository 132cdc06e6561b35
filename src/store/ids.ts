// Identifiers an operator can read and type: kind, UTC time to the second, 4 random hex digits.
// Sorting them as strings sorts them by time.
import { randomBytes } from 'node:crypto';

export function newId(kind: 'run' | 'snap', now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${kind}-${stamp}-${randomBytes(2).toString('hex')}`;
}
