// Preview of a plan: the same diff as `--dry-run` (marks plus colour), the warnings, and the
// guarded apply form: the operator types the connector's name.
import { positionTable, type Plan, type PlanDiffEntry } from '../ops-bridge.js';
import { csrfField, html, layout, raw, stateBadge, type Html, type LayoutOptions } from '../html.js';
import { json } from './offsets-view.js';

const MARK: Record<PlanDiffEntry['kind'], [string, string]> = {
  changed: ['~', 'changed'], added: ['+', 'added'], removed: ['−', 'removed'], unchanged: ['=', 'unchanged'],
};

const VERB: Record<Plan['operation'], string> = { rewind: 'Rewind', reset: 'Reset', rollback: 'Roll back', resume: 'Resume run' };

export function planSummary(plan: Plan): string {
  const { changed, added, removed, unchanged } = plan.diff.counts;
  return plan.nothingToChange
    ? `No change: the target equals the current offsets (${unchanged} partition${unchanged === 1 ? '' : 's'}).`
    : `${changed} changed, ${added} added, ${removed} removed, ${unchanged} unchanged.`;
}

/** What becomes of the connector afterwards, from the plan's `stateAfter` (what ops will do). */
export function afterText(plan: Plan): string {
  if (plan.operation === 'resume') return `finished from its journal${plan.resumeAt ? ` (at step ${plan.resumeAt})` : ''}, then left ${plan.stateAfter}`;
  if (plan.operation === 'rollback') return `then left ${plan.stateAfter}`;
  if (plan.resumeAfter === 'never') return 'then left STOPPED';
  if (plan.resumeAfter === 'always') return 'then resumed (RUNNING)';
  return `then put back to ${plan.stateAfter}`;
}

/** The diff table: every entry that changes; unchanged ones too when there are few. */
export function diffTable(plan: Plan): Html {
  const showUnchanged = plan.diff.entries.length <= 50;
  const rows = plan.diff.entries.filter((e) => showUnchanged || e.kind !== 'unchanged');
  return html`<div class="scroll"><table class="data diff">
<caption class="visually-hidden">Offsets partition by partition: ${planSummary(plan)}</caption>
<thead><tr><th scope="col"><span class="visually-hidden">Change</span></th><th scope="col">Partition</th><th scope="col">Before</th><th scope="col">After</th></tr></thead>
<tbody>${rows.map((e) => {
    const [mark, label] = MARK[e.kind];
    return html`<tr class="diff-${e.kind}"><td class="mark" title="${label}"><span aria-hidden="true">${mark}</span><span class="visually-hidden">${label}</span></td><td><code>${e.key}</code></td><td><code>${json(e.before)}</code></td><td><code>${e.kind === 'removed' ? '(removed)' : json(e.after)}</code></td></tr>`;
  })}</tbody></table></div>`;
}

/**
 * A rewind to a position: how the targets were found, partition by partition, with the CLI's
 * columns and summary (`rewind --to-... --dry-run` prints the same table above its diff).
 */
export function positionsSection(plan: Plan): Html | '' {
  if (!plan.positions) return '';
  const t = positionTable(plan.positions.plan);
  return html`<section aria-labelledby="h-positions" class="positions">
<h2 id="h-positions">Position <code>${plan.positions.plan.position}</code></h2>
${plan.positions.notes.length ? html`<ul class="plain muted">${plan.positions.notes.map((n) => html`<li>${n}</li>`)}</ul>` : ''}
${plan.positions.kafka ? html`<p class="muted">Looked up on Kafka <code>${plan.positions.kafka.servers}</code>, cluster <code>${plan.positions.kafka.clusterId}</code>.</p>` : ''}
<p id="positions-summary">${t.summary}</p>
${t.rows.length === 0 ? '' : html`<div class="scroll"><table class="data position-plan">
<caption class="visually-hidden">Target per partition</caption>
<thead><tr>${t.header.map((h, i) => html`<th scope="col"${t.align[i] === 'right' ? raw(' class="num"') : ''}>${h.toLowerCase().replace(/^./, (c) => c.toUpperCase())}</th>`)}</tr></thead>
<tbody>${t.rows.map((row) => html`<tr>${row.map((cell, i) => html`<td${t.align[i] === 'right' ? raw(' class="num"') : ''}>${cell}</td>`)}</tr>`)}</tbody>
</table></div>`}</section>`;
}

export function previewPage(plan: Plan, planId: string, csrf: string, frame: Omit<LayoutOptions, 'title' | 'nav'>, confirmError?: string, approvalRequired = false): Html {
  const verb = VERB[plan.operation];
  return layout({ ...frame, title: `${verb} ${plan.connector}: preview`, nav: 'connectors' }, html`
<p>Connector <a href="/connectors/${encodeURIComponent(plan.connector)}">${plan.connector}</a> (${plan.connectorType}, ${stateBadge(plan.stateBefore)}) on <code>${plan.clusterUrl}</code>.
${plan.snapshotId ? html` Snapshot <a href="/snapshots/${encodeURIComponent(plan.snapshotId)}">${plan.snapshotId}</a>.` : ''}
${plan.runId ? html` Run <a href="/runs/${encodeURIComponent(plan.runId)}">${plan.runId}</a>.` : ''}</p>
<p class="summary" id="diff-summary">${planSummary(plan)}</p>
${plan.profile ? html`<ul class="profile-facts" aria-label="What the connector's profile read">${plan.profile.facts.map((f) => html`<li>${f}</li>`)}</ul>` : ''}
${plan.warnings.length ? html`<ul class="warnings">${plan.warnings.map((w) => html`<li>warning: ${w}</li>`)}</ul>` : ''}
${diffTable(plan)}
${positionsSection(plan)}
<section aria-labelledby="h-apply" class="apply">
<h2 id="h-apply">${approvalRequired ? 'Request approval' : 'Apply'}</h2>
${approvalRequired ? html`<p id="approval-note">This context requires approval: confirming records a change request; nothing changes until someone else approves it and it is applied.</p>` : ''}
<p>${approvalRequired ? 'When applied, the' : 'The'} connector is stopped while its offsets change, a snapshot is stored first, ${afterText(plan)}.</p>
${confirmError ? html`<div class="error" role="alert"><strong>Refused, nothing was changed:</strong> <span class="error-text">${confirmError}</span></div>` : ''}
<form method="post" action="/plans/${encodeURIComponent(planId)}/apply">
${csrfField(csrf)}
<label for="confirm">Type the connector's name, <strong>${plan.connector}</strong>, to confirm</label>
<input id="confirm" name="confirm" autocomplete="off" spellcheck="false" required aria-describedby="diff-summary">
<button type="submit" class="danger">${approvalRequired ? `Request: ${verb.toLowerCase()}` : verb}</button>
</form>
</section>`);
}
