// Change offsets: edit the offsets in the table (this page of them; PATCH semantics, so rows
// left alone keep their offset) or paste JSON; choose what happens to the connector afterwards;
// Preview sends nothing but reads. Sinks can also move to a position (time, earliest, latest,
// shift-by) when Kafka access is configured; otherwise the page says why not in one line.
import type { ConnectorInfo, PositionSupport } from '../ops-bridge.js';
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
  /** Whether the position form is offered (and why not). */
  positions: PositionSupport;
  /** The position form as last sent (kept on a refusal). */
  position?: PositionChoice;
}

/** The position form's fields as sent: kind (earliest, latest, time, shift) and the two texts. */
export interface PositionChoice {
  kind: string;
  time: string;
  shift: string;
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
${view.positions.offered ? positionForm(view, base, view.positions) : html`<section aria-labelledby="h-position">
<h2 id="h-position">Move to a position</h2>
<p class="muted" id="position-why">Not offered: ${view.positions.why}.</p></section>`}
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

function positionForm(view: ChangeView, base: string, support: { kinds: string[]; lookup: string }): Html {
  const offered = (kind: string): boolean => support.kinds.includes(kind);
  const chosen = view.position?.kind ?? 'earliest';
  const radio = (value: string): Html => html`<input type="radio" name="position" value="${value}" id="position-${value}"${value === chosen ? raw(' checked') : ''}>`;
  const flag = support.kinds.length === 1 ? `--to-${support.kinds[0]}` : '--to-...';
  return html`<section aria-labelledby="h-position">
<h2 id="h-position">Move to a position</h2>
<form method="post" action="${base}/preview" class="position">
${csrfField(view.csrf)}<input type="hidden" name="mode" value="position">
<p class="muted" id="position-lookup">Like <code>offsetctl rewind ${view.info.name} ${flag}</code>: ${support.lookup}.</p>
<fieldset><legend>Move every partition to</legend>
${offered('earliest') ? html`<p>${radio('earliest')} <label for="position-earliest">earliest: the start of the log (replay everything kept)</label></p>` : ''}
${offered('latest') ? html`<p>${radio('latest')} <label for="position-latest">latest: the end of the log (skip everything unread)</label></p>` : ''}
${offered('time') ? html`<p>${radio('time')} <label for="position-time">the first record at or after</label>
<input type="datetime-local" name="time" id="position-time-value" step="1" value="${view.position?.time ?? ''}" aria-label="time (UTC)"> <span class="muted">UTC</span></p>` : ''}
${offered('shift') ? html`<p>${radio('shift')} <label for="position-shift">shift by</label>
<input name="shift" id="position-shift-value" inputmode="numeric" class="num" autocomplete="off" value="${view.position?.shift ?? ''}" aria-label="records to shift by (negative replays, positive skips)"> records <span class="muted">(−5000 replays, +100 skips)</span></p>` : ''}
</fieldset>
${resumeChoice(view, 'position')}
<button type="submit" class="primary">Preview</button>
</form></section>`;
}
