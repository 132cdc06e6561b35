// A change request as a person reads it, in both faces: the list's columns, the heading of one
// request, and its history (who asked, approved, rejected, applied, when, why).
import type { ChangeRequestRecord } from '../ops/index.js';

export const REQUEST_COLUMNS = ['ID', 'STATUS', 'CHANGE', 'REQUESTED BY', 'REQUESTED AT', 'EXPIRES AT', 'LAST'];

export function requestRow(r: ChangeRequestRecord): string[] {
  const last = r.history.at(-1);
  return [
    r.id,
    statusText(r),
    changeText(r),
    r.requestedBy.user,
    r.requestedAt,
    r.expiresAt,
    last && last.action !== 'requested' ? `${actionText(r, last)} by ${last.actor.user}` : '',
  ];
}

type RequestEvent = ChangeRequestRecord['history'][number];

/** A rejection by the requester themselves is no review: they withdrew their request. */
function withdrawn(r: ChangeRequestRecord, h: RequestEvent): boolean {
  return h.action === 'rejected' && h.actor.user === r.requestedBy.user;
}

function actionText(r: ChangeRequestRecord, h: RequestEvent): string {
  return withdrawn(r, h) ? 'withdrawn' : h.action;
}

/** The status as read: `withdrawn` for a request its requester rejected (stored as rejected: `changes list --status rejected` finds it). */
export function statusText(r: ChangeRequestRecord): string {
  const last = r.history.at(-1);
  return r.status === 'rejected' && last && withdrawn(r, last) ? 'withdrawn' : r.displayStatus;
}

export function changeText(r: Pick<ChangeRequestRecord, 'operation' | 'connectors'>): string {
  return r.connectors.length === 1
    ? `${r.operation} of ${r.connectors[0]}`
    : `${r.operation} of ${r.connectors.length} connectors (${r.connectors.join(', ')})`;
}

export function requestHeading(r: ChangeRequestRecord): string {
  return (
    `Change request ${r.id}: ${changeText(r)} on ${r.clusterUrl}${r.contextName ? ` (context ${r.contextName})` : ''}, ${statusText(r)}; ` +
    `requested by ${r.requestedBy.user} at ${r.requestedAt}, expires at ${r.expiresAt}; digest ${r.digest}`
  );
}

export function historyLines(r: ChangeRequestRecord): string[] {
  return r.history.map((h) => {
    const db = h.actor.dbUser && h.actor.dbUser !== h.actor.user ? `, database user ${h.actor.dbUser}` : '';
    const note = withdrawn(r, h) && h.message === 'withdrawn by the requester' ? '' : (h.message ?? '');
    const extra = [h.reason ? `reason: ${h.reason}` : '', h.runIds && h.runIds.length > 0 ? `runs ${h.runIds.join(', ')}` : '', note]
      .filter(Boolean)
      .join('; ');
    const who = `${h.actor.user}${withdrawn(r, h) ? ' (the requester)' : ''} (${h.actor.osUser}@${h.actor.host}${db}, via ${h.actor.via})`;
    return `${h.at}  ${actionText(r, h)} by ${who}${extra ? `: ${extra}` : ''}`;
  });
}
