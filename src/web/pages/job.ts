// A running (or finished) operation: its steps as they happen, then the final state and the
// snapshot id. app.js follows /jobs/:id/events; without JavaScript the page reloads itself every
// 3 s while the job runs.
import type { Job, JobEnd, JobEvent } from '../jobs.js';
import type { BatchRow } from '../ops-bridge.js';
import { html, layout, stateBadge, time, type Html, type LayoutOptions } from '../html.js';

export function jobPage(job: Job, frame: Omit<LayoutOptions, 'title' | 'nav'>): Html {
  const links = job.connectors.map((name, i) => html`${i > 0 ? ', ' : ''}<a href="/connectors/${encodeURIComponent(name)}">${name}</a>`);
  return layout({ ...frame, title: job.title, nav: 'runs', ...(job.end ? {} : { refreshWithoutScript: 3 }) }, html`
<p>Started ${time(job.startedAt)} by <span class="job-by">${job.by}</span> on <code>${job.clusterUrl}</code>. ${job.connectors.length === 1 ? html`<a href="/connectors/${encodeURIComponent(job.connectors[0]!)}">Connector page</a>` : html`Connectors: ${links}`}</p>
<section aria-labelledby="h-steps">
<h2 id="h-steps">Steps</h2>
<ol id="job-events" class="events" data-events="${job.end ? '' : `/jobs/${encodeURIComponent(job.id)}/events`}" aria-live="polite">
${job.events.map(eventItem)}
</ol>
</section>
<section id="job-end" aria-live="polite" aria-labelledby="h-end">
<h2 id="h-end">Result</h2>
${job.end ? endBox(job.end) : html`<p class="muted" id="job-pending">Running…<noscript> (this page reloads itself every 3 s)</noscript></p>`}
</section>`);
}

export function eventItem(e: JobEvent): Html {
  const cls = e.type === 'step.finished' ? (e.status === 'passed' ? 'ok' : 'bad') : e.type.startsWith('workflow') ? 'wf' : 'detail';
  const mark = e.type === 'step.finished' ? (e.status === 'passed' ? '✓' : '✗') : e.type === 'step.started' || e.type === 'step.waiting' ? '…' : '·';
  return html`<li class="ev ${cls}" data-type="${e.type}"${e.stepId ? html` data-step="${e.stepId}"` : ''}><span class="mark" aria-hidden="true">${mark}</span> ${e.text}</li>`;
}

export function endBox(end: JobEnd): Html {
  return html`<div class="outcome ${end.status}" data-status="${end.status}">
<p><strong>${end.status === 'succeeded' ? 'Finished' : end.status === 'unchanged' ? 'Nothing to change, nothing was stopped' : end.status === 'refused' ? 'Refused, nothing was changed' : 'Failed'}</strong>${end.connectorState ? html` — connector ${stateBadge(end.connectorState)}` : ''}</p>
<p>${end.message}</p>
${end.snapshotId ? html`<p>Snapshot <a class="snapshot-id" href="/snapshots/${encodeURIComponent(end.snapshotId)}">${end.snapshotId}</a> (roll back from there)</p>` : ''}
${end.runId ? html`<p>Run <a class="run-id" href="/runs/${encodeURIComponent(end.runId)}">${end.runId}</a></p>` : ''}
${end.batch ? batchTable(end.batch.rows) : ''}
${end.warnings.length ? html`<ul class="warnings">${end.warnings.map((w) => html`<li>warning: ${w}</li>`)}</ul>` : ''}
</div>`;
}

/** A batch's end: one row per connector, as `offsetctl changes apply` prints it. */
function batchTable(rows: readonly BatchRow[]): Html {
  return html`<table class="batch-rows">
<thead><tr><th scope="col">Connector</th><th scope="col">Result</th><th scope="col">State</th><th scope="col">Run</th><th scope="col">Snapshot</th><th scope="col">Message</th></tr></thead>
<tbody>${rows.map((r) => html`<tr data-connector="${r.connector}" data-status="${r.status}">
<td><a href="/connectors/${encodeURIComponent(r.connector)}">${r.connector}</a></td><td>${r.status}</td><td>${stateBadge(r.finalState)}</td>
<td>${r.runId ? html`<a class="run-id" href="/runs/${encodeURIComponent(r.runId)}">${r.runId}</a>` : ''}</td>
<td>${r.snapshotId ? html`<a class="snapshot-id" href="/snapshots/${encodeURIComponent(r.snapshotId)}">${r.snapshotId}</a>` : ''}</td>
<td>${r.message}</td></tr>`)}</tbody>
</table>`;
}

/** Every job this console knows (on a team store, every replica's): title, who, when, how it ended. */
export function jobsPage(jobs: Job[], frame: Omit<LayoutOptions, 'title' | 'nav'>): Html {
  return layout({ ...frame, title: 'Jobs', nav: 'runs' }, html`
<table class="jobs"><thead><tr><th scope="col">Job</th><th scope="col">Started</th><th scope="col">By</th><th scope="col">Status</th></tr></thead>
<tbody>${jobs.map((job) => html`<tr><td><a href="/jobs/${encodeURIComponent(job.id)}">${job.title}</a></td><td>${time(job.startedAt)}</td>
<td>${job.by}</td><td>${job.end ? job.end.status : 'running'}</td></tr>`)}</tbody></table>`);
}
