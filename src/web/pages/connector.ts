// Connector page: config summary (secrets never leave the server), state, tasks with their
// failure traces, the offsets table (paged; a sink's with log start, log end and lag when Kafka
// is reachable), and this connector's recent runs and snapshots.
import type { ConnectorInfo, LogPositionsResult, RunRecord, ShownPartition, SnapshotRecord } from '../ops-bridge.js';
import { html, layout, stateBadge, text, time, type Html, type LayoutOptions } from '../html.js';
import { safeConfig } from '../secrets.js';
import { isSinkPartition, offsetsTable, pageOf, pager, sortEntries, type OffsetEntryLike } from './offsets-view.js';

export interface ConnectorView {
  info: ConnectorInfo;
  offsets: OffsetEntryLike[];
  page: number;
  /** A sink's log positions for the shown page (or why there are none). */
  log?: LogPositionsResult;
  runs: RunRecord[];
  snapshots: SnapshotRecord[];
  /** The user's role may change this connector (the server checks again on every request). Default true. */
  canChange?: boolean;
}

/** The sink partitions on page `page` of the offsets table: the only ones whose log positions are read. */
export function shownSinkPartitions(offsets: OffsetEntryLike[], page: number): ShownPartition[] {
  return pageOf(sortEntries(offsets), page).rows.filter((e) => isSinkPartition(e.partition)).map((e) => {
    const committed = e.offset?.kafka_offset;
    return { topic: String(e.partition?.kafka_topic), partition: Number(e.partition?.kafka_partition), committed: typeof committed === 'number' ? committed : null };
  });
}

function logNote(log: LogPositionsResult | undefined): Html | '' {
  if (!log) return '';
  if (log.status === 'unavailable') return html`<p class="muted" id="log-note">Log start, log end and lag are not shown: ${log.reason}.</p>`;
  if (log.status === 'error') return html`<p class="notice" id="log-note" role="status">Log start, log end and lag are not shown: ${log.message}</p>`;
  return html`<p class="muted" id="log-note">Log start, log end and lag read from Kafka at <code>${log.servers}</code> when this page loaded; lag = log end − offset.</p>`;
}

export function connectorPage(view: ConnectorView, frame: Omit<LayoutOptions, 'title' | 'nav'>): Html {
  const { info } = view;
  const base = `/connectors/${encodeURIComponent(info.name)}`;
  const sorted = sortEntries(view.offsets);
  const paged = pageOf(sorted, view.page);
  return layout({ ...frame, title: `Connector ${info.name}`, nav: 'connectors' }, html`
<p class="actions">
  ${view.canChange === false ? html`<span class="muted">Your role may view this connector, not change it.</span>` : html`<a class="button primary" href="${base}/change">Change offsets…</a>`}
  <a class="button" href="/runs?connector=${encodeURIComponent(info.name)}">Runs</a>
  <a class="button" href="/snapshots?connector=${encodeURIComponent(info.name)}">Snapshots</a>
</p>
<div class="grid">
<section aria-labelledby="h-state">
<h2 id="h-state">State</h2>
<dl class="facts">
  <dt>Type</dt><dd>${info.type}</dd>
  <dt>State</dt><dd>${stateBadge(info.state)}</dd>
  <dt>Tasks</dt><dd>${info.tasks.length}</dd>
</dl>
${info.tasks.length === 0 ? html`<p class="muted">No tasks.</p>` : html`<table class="data">
<caption>Tasks</caption>
<thead><tr><th scope="col" class="num">Task</th><th scope="col">State</th><th scope="col">Worker</th></tr></thead>
<tbody>${info.tasks.map((t) => html`<tr><td class="num">${t.id}</td><td>${stateBadge(t.state)}${t.trace ? html`<details class="trace"><summary>Failure trace</summary><pre>${text(t.trace)}</pre></details>` : ''}</td><td>${t.workerId ?? ''}</td></tr>`)}</tbody>
</table>`}
</section>
<section aria-labelledby="h-config">
<h2 id="h-config">Configuration</h2>
<table class="data config"><caption class="visually-hidden">Configuration (secrets hidden)</caption>
<thead><tr><th scope="col">Key</th><th scope="col">Value</th></tr></thead>
<tbody>${safeConfig(info.config).map(([k, v, hidden]) => html`<tr><td><code>${k}</code></td><td>${hidden ? html`<span class="muted">(hidden)</span>` : html`<code>${v}</code>`}</td></tr>`)}</tbody>
</table>
</section>
</div>
<section aria-labelledby="h-offsets">
<h2 id="h-offsets">Offsets</h2>
${logNote(view.log)}
${view.offsets.length === 0 ? html`<p class="muted">Kafka Connect reports no offsets for this connector.</p>` : html`
${pager(base, paged, 'Offsets')}
${offsetsTable(sorted, paged, { caption: `${view.offsets.length} partition(s)`, ...(view.log?.status === 'ok' ? { positions: view.log.positions } : {}) })}
${pager(base, paged, 'Offsets')}`}
</section>
<section aria-labelledby="h-history">
<h2 id="h-history">Recent history</h2>
${view.runs.length === 0 ? html`<p class="muted">No runs of this connector in this console's store.</p>` : html`<ul class="plain">${view.runs.slice(0, 5).map((r) => html`<li><a href="/runs/${encodeURIComponent(r.id)}">${r.id}</a> ${r.operation} ${stateBadge(r.displayStatus)} <span class="muted">${time(r.startedAt)}</span></li>`)}</ul>`}
${view.snapshots.length === 0 ? '' : html`<p>Latest snapshot: <a href="/snapshots/${encodeURIComponent(view.snapshots[0]!.id)}">${view.snapshots[0]!.id}</a> <span class="muted">${time(view.snapshots[0]!.takenAt)}</span></p>`}
</section>`);
}
