// Change requests in the console: the list, and one request with its history, the diff of every
// connector it covers, and the forms to approve, reject (with a reason) and apply it. The forms
// are offered by role and by who is looking (no approve button for the requester), but the
// server decides: every POST is checked again there (app.ts, routes/changes.ts).
import { changeText, historyLines, statusText, type ChangeRequestRecord, type Plan } from '../ops-bridge.js';
import { csrfField, html, layout, type Html, type LayoutOptions } from '../html.js';
import { diffTable, planSummary } from './preview.js';

export function changesPage(requests: ChangeRequestRecord[], frame: Omit<LayoutOptions, 'title' | 'nav'>): Html {
  return layout({ ...frame, title: 'Change requests', nav: 'changes' }, html`
${requests.length === 0 ? html`<p>No change requests.</p>` : html`<div class="scroll"><table class="data changes">
<thead><tr><th scope="col">Request</th><th scope="col">Status</th><th scope="col">Change</th><th scope="col">Requested by</th><th scope="col">Requested at</th><th scope="col">Expires at</th></tr></thead>
<tbody>${requests.map((r) => html`<tr><td><a href="/changes/${encodeURIComponent(r.id)}">${r.id}</a></td><td><span class="status status-${r.displayStatus}">${statusText(r)}</span></td><td>${changeText(r)}</td><td>${r.requestedBy.user}</td><td>${r.requestedAt}</td><td>${r.expiresAt}</td></tr>`)}</tbody>
</table></div>`}`);
}

export interface ChangeView {
  request: ChangeRequestRecord;
  plans: Plan[];
  csrf: string;
  /** The signed-in user may approve or reject (an operator for every connector, and not the requester). */
  mayReview: boolean;
  /** Why not, when the user is an operator but the requester. */
  reviewNote?: string;
  /** The signed-in user may apply it (an operator for every connector; the request approved). */
  mayApply: boolean;
  /** A move or copy request (no offsets diff): what it does, for the reviewer. */
  moveSummary?: string;
}

export function changeRequestPage(v: ChangeView, frame: Omit<LayoutOptions, 'title' | 'nav'>): Html {
  const r = v.request;
  return layout({ ...frame, title: `Change request ${r.id}`, nav: 'changes' }, html`
<p id="request-summary">${changeText(r)} on <code>${r.clusterUrl}</code>${r.contextName ? html` (context <code>${r.contextName}</code>)` : ''}: <strong class="status status-${r.displayStatus}" id="request-status">${statusText(r)}</strong>.
Requested by <strong>${r.requestedBy.user}</strong> at ${r.requestedAt}; expires at ${r.expiresAt}. Digest <code>${r.digest}</code>.</p>
<section aria-labelledby="h-history"><h2 id="h-history">History</h2>
<ol class="history">${historyLines(r).map((l) => html`<li><code>${l}</code></li>`)}</ol></section>
${v.moveSummary ? html`<p class="summary" id="request-move">${v.moveSummary}</p>` : ''}
${v.plans.map((p) => html`<section aria-labelledby="h-${p.connector}" class="request-plan">
<h2 id="h-${p.connector}">${p.operation} of <a href="/connectors/${encodeURIComponent(p.connector)}">${p.connector}</a> (${p.connectorType}, ${p.stateBefore} when planned)</h2>
<p class="summary">${planSummary(p)}</p>
${p.warnings.length ? html`<ul class="warnings">${p.warnings.map((w) => html`<li>warning: ${w}</li>`)}</ul>` : ''}
${diffTable(p)}</section>`)}
${v.reviewNote ? html`<p class="muted" id="review-note">${v.reviewNote}</p>` : ''}
${v.mayReview ? html`<section aria-labelledby="h-review" class="review"><h2 id="h-review">Review</h2>
<form method="post" action="/changes/${encodeURIComponent(r.id)}/approve">${csrfField(v.csrf)}<button type="submit" id="approve">Approve</button></form>
<form method="post" action="/changes/${encodeURIComponent(r.id)}/reject">${csrfField(v.csrf)}
<label for="reason">Reason for rejecting</label> <input id="reason" name="reason" autocomplete="off" required>
<button type="submit" id="reject" class="danger">Reject</button></form></section>` : ''}
${v.mayApply ? html`<section aria-labelledby="h-apply" class="apply"><h2 id="h-apply">Apply</h2>
<p>Checked against the cluster again first (the connector's identity, offsets that moved, a plan applied before); a snapshot is stored before any change.</p>
<form method="post" action="/changes/${encodeURIComponent(r.id)}/apply">${csrfField(v.csrf)}<button type="submit" id="apply" class="danger">Apply</button></form></section>` : ''}`);
}
