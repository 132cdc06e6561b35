// What both backends share about change requests: the record as read (the expiry shown as
// `expired`), the history line a move appends, and the refusal of a move that came too late.
// The SQL stays in each backend; the status check is in the UPDATE's WHERE, so two people moving
// one request at once cannot both succeed.
import { StoreError } from './errors.js';
import type { Actor, ChangeRequestEvent, ChangeRequestMove, ChangeRequestRecord, ChangeRequestStatus } from './types.js';

export function displayStatus(status: ChangeRequestStatus, expiresAt: string, now: Date): ChangeRequestRecord['displayStatus'] {
  return (status === 'pending' || status === 'approved') && Date.parse(expiresAt) <= now.getTime() ? 'expired' : status;
}

export function moveEvent(move: ChangeRequestMove, actor: Actor, at: string): ChangeRequestEvent {
  return {
    at, action: move.to, actor,
    ...(move.reason !== undefined ? { reason: move.reason } : {}),
    ...(move.runIds ? { runIds: move.runIds } : {}),
    ...(move.batchId ? { batchId: move.batchId } : {}),
    ...(move.message !== undefined ? { message: move.message } : {}),
  };
}

/** The refusal when the UPDATE found the request in another status (or expired). */
export function movedMeanwhile(current: ChangeRequestRecord, move: ChangeRequestMove): StoreError {
  const last = current.history.at(-1);
  const by = last ? ` (${last.action} by ${last.actor.user} at ${last.at})` : '';
  const why = current.displayStatus === 'expired' ? `expired at ${current.expiresAt}` : `is ${current.status}${by}`;
  return new StoreError('E_CHANGED', `change request ${current.id} ${why}, not ${move.from.join(' or ')}: it cannot be ${move.to}; nothing was changed`);
}
