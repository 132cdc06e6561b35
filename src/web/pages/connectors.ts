// Connectors page: every connector of the current context with type, state, tasks and its last
// run; a filter box and an auto-refreshing table (htmx swaps in /connectors/table every 5 s,
// keeping the filter). Without JavaScript the filter is a plain GET form.
import type { ConnectorSummary, RunRecord } from '../ops-bridge.js';
import { html, layout, stateBadge, time, type Html, type LayoutOptions } from '../html.js';

export interface ConnectorsView {
  connectors: ConnectorSummary[];
  /** Latest run per connector name. */
  lastRuns: Map<string, RunRecord>;
  filter: string;
  clusterUrl: string;
  /** A read error (cluster down, credentials refused): shown instead of the table. */
  loadError?: string;
}

export function connectorsPage(view: ConnectorsView, frame: Omit<LayoutOptions, 'title' | 'nav'>): Html {
  return layout({ ...frame, title: 'Connectors', nav: 'connectors' }, html`
<p class="muted">Kafka Connect at <code>${view.clusterUrl}</code></p>
<form class="filter" method="get" action="/connectors" role="search">
  <label for="filter">Filter by name, type or state</label>
  <input id="filter" name="q" type="search" value="${view.filter}" autocomplete="off"
    hx-get="/connectors/table" hx-trigger="input changed delay:250ms, search" hx-target="#connectors-table" hx-swap="outerHTML" hx-include="this">
  <button type="submit">Filter</button>
</form>
${connectorsTable(view)}`);
}

/** The table alone (the htmx refresh target). */
export function connectorsTable(view: ConnectorsView): Html {
  const q = view.filter.trim().toLowerCase();
  const rows = q === '' ? view.connectors : view.connectors.filter((c) => c.name.toLowerCase().includes(q) || c.type.toLowerCase() === q || c.state.toLowerCase() === q);
  const refresh = `/connectors/table?q=${encodeURIComponent(view.filter)}`;
  return html`<section id="connectors-table" hx-get="${refresh}" hx-trigger="every 5s" hx-swap="outerHTML" aria-live="polite">
${view.loadError
    ? html`<div class="error" role="alert">${view.loadError}</div>`
    : html`<p class="muted">${rows.length} of ${view.connectors.length} connector(s), refreshed every 5 s</p>
<div class="scroll"><table class="data">
<thead><tr><th scope="col">Name</th><th scope="col">Type</th><th scope="col">State</th><th scope="col">Tasks</th><th scope="col">Last run</th></tr></thead>
<tbody>
${rows.map((c) => connectorRow(c, view.lastRuns.get(c.name)))}
</tbody></table></div>`}
</section>`;
}

function connectorRow(c: ConnectorSummary, run: RunRecord | undefined): Html {
  const running = c.tasks.filter((t) => t.state === 'RUNNING').length;
  const failed = c.tasks.filter((t) => t.state === 'FAILED').length;
  return html`<tr>
<td><a href="/connectors/${encodeURIComponent(c.name)}">${c.name}</a></td>
<td>${c.type}</td>
<td>${stateBadge(c.state)}</td>
<td>${running}/${c.tasks.length} running${failed ? html` <span class="badge bad">${failed} failed</span>` : ''}</td>
<td>${run ? html`<a href="/runs/${encodeURIComponent(run.id)}">${run.operation} ${run.displayStatus}</a> <span class="muted">${time(run.startedAt)}</span>` : html`<span class="muted">none</span>`}</td>
</tr>`;
}
