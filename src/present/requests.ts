// A change request as a person reads it, in both faces: the list's columns, the heading of one
// request, and its history (who asked, approved, rejected, applied, when, why).
import type { ChangeRequestRecord } from '../ops/index.js';

export const REQUEST_COLUMNS = ['ID', 'STATUS', 'CHANGE', 'REQUESTED BY', 'REQUESTED AT', 'EXPIRES AT', 'LAST'];

export function requestRow(r: ChangeRequestRecord): string[] {
  const last = r.history.at(-1);
  return [r.id, r.displayStatus, changeText(r), r.requestedBy.user, r.requestedAt, r.expiresAt, last && last.action !== 'requested' ? `${last.action} by ${last.actor.user}` : ''];
}

export function changeText(r: Pick<ChangeRequestRecord, 'operation' | 'connectors'>): string {
  return r.connectors.length === 1 ? `${r.operation} of ${r.connectors[0]}` : `${r.operation} of ${r.connectors.length} connectors (${r.connectors.join(', ')})`;
}

export function requestHeading(r: ChangeRequestRecord): string {
  return `Change request ${r.id}: ${changeText(r)} on ${r.clusterUrl}${r.contextName ? ` (context ${r.contextName})` : ''}, ${r.displayStatus}; requested by ${r.requestedBy.user} at ${r.requestedAt}, expires at ${r.expiresAt}; digest ${r.digest}`;
}

export function historyLines(r: ChangeRequestRecord): string[] {
  return r.history.map((h) => {
    const db = h.actor.dbUser && h.actor.dbUser !== h.actor.user ? `, database user ${h.actor.dbUser}` : '';
    const extra = [h.reason ? `reason: ${h.reason}` : '', h.runIds && h.runIds.length > 0 ? `runs ${h.runIds.join(', ')}` : '', h.message ?? ''].filter(Boolean).join('; ');
    return `${h.at}  ${h.action} by ${h.actor.user} (${h.actor.osUser}@${h.actor.host}${db}, via ${h.actor.via})${extra ? `: ${extra}` : ''}`;
  });
}
