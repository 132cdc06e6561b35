// Runs and snapshots: the same records as `offsetctl runs`, `runs show`, `snapshots` and
// `snapshots show`, with resume for an interrupted run and a guarded rollback per snapshot.
import { actorName, describeActor, type EventRecord, type Plan, type RunRecord, type SnapshotRecord, type StepRecord } from '../ops-bridge.js';
import { csrfField, html, layout, stateBadge, text, time, type Html, type LayoutOptions } from '../html.js';
import { offsetsTable, pageOf, pager, sortEntries, type OffsetEntryLike } from './offsets-view.js';
import { afterText, diffTable, planSummary } from './preview.js';

type Frame = Omit<LayoutOptions, 'title' | 'nav'>;

/** Who started a run, as the run records it: a console's signed-in user by name, else user@host. */
function startedBy(run: RunRecord): string {
  return run.actor.signIn ? run.actor.user : actorName(run.actor);
}

export function runsPage(runs: RunRecord[], connector: string | undefined, frame: Frame): Html {
  return layout({ ...frame, title: connector ? `Runs of ${connector}` : 'Runs', nav: 'runs' }, html`
${connector ? html`<p><a href="/runs">All runs</a></p>` : ''}
${runs.length === 0 ? html`<p class="muted">No runs yet on this cluster.</p>` : html`<div class="scroll"><table class="data">
<thead><tr><th scope="col">Run</th><th scope="col">Connector</th><th scope="col">Operation</th><th scope="col">Status</th><th scope="col">Started</th><th scope="col">Last step</th><th scope="col">Connector state</th><th scope="col">Snapshot</th><th scope="col">By</th></tr></thead>
<tbody>${runs.map((r) => html`<tr>
<td><a href="/runs/${encodeURIComponent(r.id)}">${r.id}</a></td>
<td><a href="/connectors/${encodeURIComponent(r.connector)}">${r.connector}</a></td>
<td>${r.operation}</td><td>${stateBadge(r.displayStatus)}</td><td>${time(r.startedAt)}</td><td>${r.lastStep ?? ''}</td><td>${r.connectorState ?? ''}</td>
<td>${r.context.snapshotId ? html`<a class="rollback-link" href="/snapshots/${encodeURIComponent(r.context.snapshotId)}" aria-label="Roll back ${r.connector} to snapshot ${r.context.snapshotId}">Roll back…</a>` : ''}</td>
<td class="run-by" title="${describeActor(r.actor)}">${startedBy(r)}</td>
</tr>`)}</tbody></table></div>`}`);
}

export function runPage(run: RunRecord, steps: StepRecord[], events: EventRecord[], csrf: string, frame: Frame): Html {
  const interrupted = run.displayStatus === 'interrupted';
  return layout({ ...frame, title: `Run ${run.id}`, nav: 'runs' }, html`
<dl class="facts">
<dt>Operation</dt><dd>${run.operation} of <a href="/connectors/${encodeURIComponent(run.connector)}">${run.connector}</a> on <code>${run.clusterUrl}</code></dd>
<dt>Status</dt><dd>${stateBadge(run.displayStatus)}</dd>
<dt>Started</dt><dd>${time(run.startedAt)} by <span class="run-by">${startedBy(run)}</span>${run.finishedAt ? html`, finished ${time(run.finishedAt)}` : ''} (pid ${run.pid})</dd>
<dt>Started by</dt><dd class="run-actor">${describeActor(run.actor)}</dd>
${run.resumedBy ? html`<dt>Resumed by</dt><dd class="run-resumed-by">${describeActor(run.resumedBy)}</dd>` : ''}
<dt>Workflow</dt><dd>${run.workflowId} (${run.workflowFile})</dd>
<dt>Last step</dt><dd>${run.lastStep ?? '(none finished)'}</dd>
${run.context.snapshotId ? html`<dt>Snapshot</dt><dd><a href="/snapshots/${encodeURIComponent(run.context.snapshotId)}">${run.context.snapshotId}</a> (roll back from there)</dd>` : ''}
${run.connectorState ? html`<dt>Connector</dt><dd>${stateBadge(run.connectorState)}</dd>` : ''}
${run.message ? html`<dt>Message</dt><dd>${text(run.message)}</dd>` : ''}
</dl>
${interrupted ? html`<form method="post" action="/runs/${encodeURIComponent(run.id)}/resume" class="inline">${csrfField(csrf)}
<p>The process of this run is gone. Finish it from its last finished step (preview first):</p>
<button type="submit" class="primary">Preview resume</button></form>` : ''}
<section aria-labelledby="h-steps"><h2 id="h-steps">Steps</h2>
${steps.length === 0 ? html`<p class="muted">No step finished.</p>` : html`<table class="data"><thead><tr><th scope="col" class="num">#</th><th scope="col">Step</th><th scope="col">Status</th><th scope="col">Finished</th></tr></thead>
<tbody>${steps.map((s, i) => html`<tr data-step-status="${stepStatus(steps, i)}"><td class="num">${s.seq}</td>
<td>${s.stepId} <span class="muted">${s.workflowId}</span></td><td>${stepCell(steps, i)}</td><td>${time(s.finishedAt)}</td></tr>`)}</tbody></table>`}
</section>
<section aria-labelledby="h-journal"><h2 id="h-journal">Journal</h2>
<ol class="events journal">${events.map((e) => html`<li><span class="muted">${time(e.at)}</span> ${e.type}${e.stepId ? ` ${e.stepId}` : ''} ${text(eventText(e.detail))}</li>`)}</ol>
</section>`);
}

/** The same one-line account `offsetctl runs show` prints. */
function eventText(detail: Record<string, unknown>): string {
  const d = detail as { method?: string; url?: string; status?: unknown; passed?: boolean; condition?: string; action?: { type?: string; name?: string }; error?: { message?: string }; attempt?: number };
  if (d.method) return `${d.method} ${d.url}`;
  if (d.condition !== undefined) return `${d.passed ? 'passed' : 'failed'}: ${d.condition}`;
  if (d.action) return `${d.action.type} (${d.action.name})`;
  if (d.error) return `${String(d.status ?? '')} ${d.error.message ?? ''}`.trim();
  if (d.attempt !== undefined) return `attempt ${d.attempt}`;
  return d.status === undefined ? '' : String(d.status);
}

export function snapshotsPage(snapshots: SnapshotRecord[], connector: string | undefined, frame: Frame): Html {
  return layout({ ...frame, title: connector ? `Snapshots of ${connector}` : 'Snapshots', nav: 'snapshots' }, html`
${connector ? html`<p><a href="/snapshots">All snapshots</a></p>` : ''}
${snapshots.length === 0 ? html`<p class="muted">No snapshots yet on this cluster: rewind, reset and rollback take one before they change anything.</p>` : html`<div class="scroll"><table class="data">
<thead><tr><th scope="col">Snapshot</th><th scope="col">Connector</th><th scope="col">Type</th><th scope="col">State before</th><th scope="col" class="num">Partitions</th><th scope="col">Taken</th><th scope="col">Run</th></tr></thead>
<tbody>${snapshots.map((s) => html`<tr>
<td><a href="/snapshots/${encodeURIComponent(s.id)}">${s.id}</a></td><td><a href="/connectors/${encodeURIComponent(s.connector)}">${s.connector}</a></td><td>${s.connectorType}</td><td>${s.stateBefore}</td><td class="num">${s.partitions}</td><td>${time(s.takenAt)}</td>
<td>${s.runId ? html`<a href="/runs/${encodeURIComponent(s.runId)}">${s.runId}</a>` : ''}</td></tr>`)}</tbody></table></div>`}`);
}

export interface SnapshotView {
  snapshot: SnapshotRecord;
  page: number;
  /** The rollback plan (its diff is the snapshot against the current offsets), or why there is none. */
  plan?: Plan;
  planId?: string;
  planError?: string;
  csrf: string;
}

export function snapshotPage(view: SnapshotView, frame: Frame): Html {
  const s = view.snapshot;
  const entries = sortEntries(s.offsets as OffsetEntryLike[]);
  const base = `/snapshots/${encodeURIComponent(s.id)}`;
  const paged = pageOf(entries, view.page);
  return layout({ ...frame, title: `Snapshot ${s.id}`, nav: 'snapshots' }, html`
<dl class="facts">
<dt>Connector</dt><dd><a href="/connectors/${encodeURIComponent(s.connector)}">${s.connector}</a> (${s.connectorType}) on <code>${s.clusterUrl}</code></dd>
<dt>Taken</dt><dd>${time(s.takenAt)}${s.runId ? html` by run <a href="/runs/${encodeURIComponent(s.runId)}">${s.runId}</a>` : ''}</dd>
<dt>State before</dt><dd>${stateBadge(s.stateBefore)}</dd>
<dt>Partitions</dt><dd>${s.partitions}</dd>
</dl>
<section aria-labelledby="h-diff"><h2 id="h-diff">Against the current offsets</h2>
${view.plan && view.planId ? html`<p class="summary" id="diff-summary">${planSummary(view.plan)}</p>
${diffTable(view.plan)}
<section aria-labelledby="h-rollback" class="apply"><h3 id="h-rollback">Roll back to this snapshot</h3>
<p>The connector is stopped, its offsets become exactly the snapshot's (a new snapshot is stored first), ${afterText(view.plan)}.</p>
<form method="post" action="/plans/${encodeURIComponent(view.planId)}/apply">
${csrfField(view.csrf)}
<label for="confirm">Type the connector's name, <strong>${s.connector}</strong>, to confirm</label>
<input id="confirm" name="confirm" autocomplete="off" spellcheck="false" required aria-describedby="diff-summary">
<button type="submit" class="danger">Roll back</button>
</form></section>` : html`<div class="error" role="alert">${view.planError ?? 'cannot compare with the cluster'}</div>`}
</section>
<section aria-labelledby="h-offsets"><h2 id="h-offsets">Offsets in the snapshot</h2>
${pager(base, paged, 'Snapshot offsets')}
${offsetsTable(entries, paged, { caption: `${s.partitions} partition(s)` })}
</section>`);
}

/**
 * A step's row: passed, failed, or retried — a polling step's attempt that was not there yet and
 * was tried again (the same step recorded later in the run) is waiting, not a failure.
 */
function stepStatus(steps: StepRecord[], i: number): 'passed' | 'retried' | 'failed' {
  const s = steps[i]!;
  if (s.status === 'passed') return 'passed';
  return steps.slice(i + 1).some((later) => later.stepId === s.stepId && later.workflowId === s.workflowId) ? 'retried' : 'failed';
}

function stepCell(steps: StepRecord[], i: number): Html {
  const s = steps[i]!;
  const status = stepStatus(steps, i);
  const badge = stateBadge(status === 'passed' ? 'SUCCEEDED' : status === 'retried' ? 'RETRIED' : 'FAILED');
  const why = s.error ? html` <span class="${status === 'retried' ? 'muted' : ''}">${text(s.error.message)}</span>` : '';
  return html`${badge} ${status === 'retried' ? 'not yet, tried again' : s.status}${why}`;
}
