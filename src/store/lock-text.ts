// What a refusal says about the holder of a lock, the same for every backend: who (user@host),
// which process, since when, which run, and what to do about it.
import { actorName } from './actor.js';
import { StoreError } from './errors.js';
import { lockKeyWords } from './lock-scope.js';
import type { LockRecord } from './types.js';

export function lockedError(held: LockRecord): StoreError {
  const lease = held.expiresAt ? `, lease ${held.alive ? 'until' : 'expired at'} ${held.expiresAt}` : '';
  const who = `run ${held.runId} of ${actorName(held.actor)} (pid ${held.pid} on ${held.hostname}, since ${held.acquiredAt}${lease})`;
  if (held.alive) {
    return new StoreError('E_LOCKED', `connector ${held.connector} on ${describeKey(held)} is busy: ${who} is working on it. Wait for it to finish, or inspect it with \`offsetctl runs show ${held.runId}\`.`);
  }
  return new StoreError('E_LOCKED', `connector ${held.connector} on ${describeKey(held)} has a stale lock: ${who} died before finishing. Inspect it with \`offsetctl runs show ${held.runId}\`, then finish it with \`offsetctl runs resume ${held.runId}\` or undo it with \`offsetctl rollback ${held.connector}\`.`);
}

/**
 * Where the locked offsets live, in words (src/store/lock-scope.ts): `consumer group connect-x on
 * Kafka cluster <id> (locked through http://…)`, or the URL alone when the identity is unknown.
 */
export function describeKey(held: Pick<LockRecord, 'clusterKey' | 'clusterUrl'>): string {
  const words = lockKeyWords(held.clusterKey);
  return words ? `${words} (locked through ${held.clusterUrl})` : held.clusterUrl;
}
