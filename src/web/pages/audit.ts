// The audit trail: who did what, when, on which connector, with the diff — the same entries as
// `offsetctl audit`, filtered to what the signed-in user may see (an admin sees every entry), and
// exportable as JSON lines.
import type { AuditRecord } from '../ops-bridge.js';
import { html, layout, text, time, type Html, type LayoutOptions } from '../html.js';

type Frame = Omit<LayoutOptions, 'title' | 'nav'>;

/** Whether the whole trail's hash chain verifies, as `offsetctl audit verify` says (docs/team.md). */
export interface AuditChainView {
  ok: boolean;
  entries: number;
  head?: string;
  /** The first entry deleted, edited or inserted out of order: its id and what is wrong. */
  firstBroken?: { id: string; message: string };
  /** The chain could not be read (the store failed). */
  error?: string;
}

export interface AuditView {
  entries: AuditRecord[];
  chain?: AuditChainView;
  connector?: string;
  since: string;
  error?: string;
}

/** Diff rows shown per entry; the rest is counted (the export has them all). */
const SHOWN_DIFF = 20;

export function auditPage(view: AuditView, frame: Frame): Html {
  const query = new URLSearchParams({ ...(view.connector ? { connector: view.connector } : {}), ...(view.since ? { since: view.since } : {}) }).toString();
  return layout({ ...frame, title: view.connector ? `Audit of ${view.connector}` : 'Audit', nav: 'audit', ...(view.error ? { error: view.error } : {}) }, html`
${view.chain ? chainLine(view.chain) : ''}
<form class="filters" method="get" action="/audit">
  <label for="audit-connector">Connector</label> <input id="audit-connector" name="connector" value="${view.connector ?? ''}">
  <label for="audit-since">Since</label> <input id="audit-since" name="since" placeholder="2026-11-30T09:00Z" value="${view.since}">
  <button type="submit">Filter</button>
  <a href="/audit/export${query ? `?${query}` : ''}" download>Export (JSON lines)</a>
</form>
${view.entries.length === 0 ? html`<p class="muted">No audit entries${view.connector ? ` for ${view.connector}` : ''}.</p>` : html`<div class="scroll"><table class="data" id="audit-table">
<thead><tr><th scope="col">Time</th><th scope="col">User</th><th scope="col">Action</th><th scope="col">Outcome</th><th scope="col">Connector</th><th scope="col">Context</th><th scope="col">Run</th><th scope="col">What</th></tr></thead>
<tbody>${view.entries.map(row)}</tbody></table></div>`}`);
}

function chainLine(chain: AuditChainView): Html {
  if (chain.error) return html`<p id="audit-chain" class="badge warn" data-ok="unknown">The audit chain could not be checked: ${chain.error}</p>`;
  if (chain.ok) {
    return html`<p id="audit-chain" data-ok="true"><span class="badge ok">verifies</span> The audit chain verifies: ${chain.entries} entries, head digest <code>${chain.head ?? '(none)'}</code>.</p>`;
  }
  return html`<p id="audit-chain" data-ok="false" data-first-broken="${chain.firstBroken?.id ?? ''}"><span class="badge bad">does not verify</span> The audit chain does not verify: ${text(chain.firstBroken?.message ?? '')}</p>`;
}

function row(e: AuditRecord): Html {
  return html`<tr data-action="${e.action}" data-outcome="${e.outcome}" data-user="${e.actor.user}">
<td>${time(e.at)}</td>
<td>${e.actor.user}${e.actor.role ? html` <span class="muted">(${e.actor.role})</span>` : ''} <span class="muted">${e.actor.via}</span></td>
<td>${e.action}</td>
<td>${outcomeBadge(e.outcome)}</td>
<td>${e.connector ? html`<a href="/connectors/${encodeURIComponent(e.connector)}">${e.connector}</a>` : ''}</td>
<td>${e.context ?? ''}</td>
<td>${e.runId ? html`<a href="/runs/${encodeURIComponent(e.runId)}">${e.runId}</a>` : ''}</td>
<td>${what(e)}</td>
</tr>`;
}

function what(e: AuditRecord): Html {
  const diff = e.diff ?? [];
  return html`${e.message ? html`<span class="audit-message">${text(e.message)}</span>` : ''}
${e.counts ? html` <span class="muted">${counts(e.counts)}</span>` : ''}
${e.snapshotId ? html` <a href="/snapshots/${encodeURIComponent(e.snapshotId)}">${e.snapshotId}</a>` : ''}
${diff.length > 0 ? html`<details class="audit-diff"><summary>diff (${diff.length})</summary><ul>${diff.slice(0, SHOWN_DIFF).map((d) => html`<li><code>${d.change === 'changed' ? '~' : d.change === 'added' ? '+' : '−'} ${text(d.partition)}: ${d.from === undefined ? '(none)' : text(d.from)} → ${d.to === undefined ? '(none)' : text(d.to)}</code></li>`)}${diff.length > SHOWN_DIFF ? html`<li class="muted">… ${diff.length - SHOWN_DIFF} more in the export</li>` : ''}</ul></details>` : ''}`;
}

function counts(c: Record<string, number>): string {
  return ['changed', 'added', 'removed', 'unchanged'].filter((k) => (c[k] ?? 0) > 0).map((k) => `${c[k]} ${k}`).join(', ');
}

function outcomeBadge(outcome: AuditRecord['outcome']): Html {
  const cls = outcome === 'succeeded' || outcome === 'done' ? 'ok' : outcome === 'failed' ? 'bad' : outcome === 'refused' ? 'warn' : 'neutral';
  return html`<span class="badge ${cls}">${outcome}</span>`;
}

/** JSON lines, oldest first (entries come newest first). */
export function auditLines(entries: readonly AuditRecord[]): string {
  return [...entries].reverse().map((e) => `${JSON.stringify(e)}\n`).join('');
}
