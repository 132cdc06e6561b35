// Change offsets: edit the offsets in the table (this page of them; PATCH semantics, so rows
// left alone keep their offset) or paste JSON; choose what happens to the connector afterwards;
// Preview sends nothing but reads. Sink positions (time, earliest, latest, shift-by) appear only
// when the ops layer reports it can plan them.
import type { ConnectorInfo } from '../ops-bridge.js';
import { csrfField, html, layout, raw, type Html, type LayoutOptions } from '../html.js';
import { isSinkPartition, json, pageOf, pager, sortEntries, type OffsetEntryLike } from './offsets-view.js';

export interface ChangeView {
  info: ConnectorInfo;
  offsets: OffsetEntryLike[];
  page: number;
  csrf: string;
  /** What the operator sent last time (kept on a refusal). */
  pasted?: string;
  mode?: 'table' | 'json' | 'position' | 'reset';
  resumeAfter?: string;
  sinkPositions: boolean;
}

export function changePage(view: ChangeView, frame: Omit<LayoutOptions, 'title' | 'nav'>): Html {
  const { info } = view;
  const base = `/connectors/${encodeURIComponent(info.name)}`;
  const sorted = sortEntries(view.offsets);
  const paged = pageOf(sorted, view.page);
  const sink = info.type === 'sink';
  const pasted = view.pasted ?? JSON.stringify({ offsets: sorted }, null, 2);
  return layout({ ...frame, title: `Change offsets of ${info.name}`, nav: 'connectors' }, html`
<p><a href="${base}">← Back to ${info.name}</a> · ${info.type} connector, state ${info.state}. Preview shows the diff; nothing changes until you apply it.</p>
<div class="grid">
<section aria-labelledby="h-table">
<h2 id="h-table">Edit in the table</h2>
${sorted.length === 0 ? html`<p class="muted">No offsets yet: paste JSON instead.</p>` : html`
<form method="post" action="${base}/preview">
${csrfField(view.csrf)}<input type="hidden" name="mode" value="table">
${pager(`${base}/change`, paged, 'Editable offsets')}
<div class="scroll"><table class="data edit">
<caption>Only rows you change are written; the others keep their offset.</caption>
<thead><tr><th scope="col">Partition</th><th scope="col">${sink ? 'kafka_offset' : 'Offset (JSON)'}</th></tr></thead>
<tbody>
${paged.rows.map((e, i) => {
    const id = `row-${paged.first + i}`;
    const sinkRow = isSinkPartition(e.partition);
    const value = sinkRow ? String(e.offset?.kafka_offset ?? '') : json(e.offset);
    const label = sinkRow ? `${String(e.partition?.kafka_topic)} partition ${String(e.partition?.kafka_partition)}` : json(e.partition);
    return html`<tr>
<td><label for="${id}"><code>${label}</code></label><input type="hidden" name="partition" value="${JSON.stringify(e.partition ?? {})}"><input type="hidden" name="original" value="${value}"></td>
<td><input id="${id}" name="offset" value="${value}" ${sinkRow ? raw('inputmode="numeric" class="num"') : raw('class="wide"')} autocomplete="off"></td>
</tr>`;
  })}
</tbody></table></div>
${resumeChoice(view, 'table')}
<button type="submit" class="primary">Preview</button>
</form>`}
</section>
<section aria-labelledby="h-json">
<h2 id="h-json">Paste JSON</h2>
<form method="post" action="${base}/preview">
${csrfField(view.csrf)}<input type="hidden" name="mode" value="json">
<label for="offsets-json">Offsets as <code>{"offsets": [...]}</code> or a bare list (the output of <code>offsetctl offsets get --output json</code> fits)</label>
<textarea id="offsets-json" name="offsets" rows="14" spellcheck="false">${pasted}</textarea>
${resumeChoice(view, 'json')}
<button type="submit" class="primary">Preview</button>
</form>
</section>
</div>
${view.sinkPositions && sink ? positionForm(view, base) : ''}
<section aria-labelledby="h-reset">
<h2 id="h-reset">Reset</h2>
<form method="post" action="${base}/preview" class="inline">
${csrfField(view.csrf)}<input type="hidden" name="mode" value="reset">
<p>Delete every offset of ${info.name} (a snapshot is kept for rollback).</p>
${resumeChoice(view, 'reset')}
<button type="submit">Preview reset</button>
</form>
</section>`);
}

function resumeChoice(view: ChangeView, form: string): Html {
  const current = view.resumeAfter ?? 'auto';
  const id = `resume-${form}`;
  const opt = (value: string, label: string): Html => html`<option value="${value}"${value === current ? raw(' selected') : ''}>${label}</option>`;
  return html`<p><label for="${id}">Afterwards</label>
<select id="${id}" name="resumeAfter">
${opt('auto', `put it back to ${view.info.state} (default)`)}${opt('always', 'resume it (RUNNING)')}${opt('never', 'leave it STOPPED')}
</select></p>`;
}

function positionForm(view: ChangeView, base: string): Html {
  return html`<section aria-labelledby="h-position">
<h2 id="h-position">Move to a position</h2>
<form method="post" action="${base}/preview">
${csrfField(view.csrf)}<input type="hidden" name="mode" value="position">
<fieldset><legend>Every partition of every topic to</legend>
<label><input type="radio" name="position" value="earliest" checked> earliest</label>
<label><input type="radio" name="position" value="latest"> latest</label>
<label><input type="radio" name="position" value="time"> the first record at or after <input type="datetime-local" name="time" aria-label="time"></label>
<label><input type="radio" name="position" value="shift"> shift by <input type="number" name="shift" aria-label="records to shift by (negative goes back)"> records</label>
</fieldset>
${resumeChoice(view, 'position')}
<button type="submit" class="primary">Preview</button>
</form></section>`;
}
