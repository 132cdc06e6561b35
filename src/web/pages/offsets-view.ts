// Showing offsets: one row per partition, the partition and offset as canonical JSON (a sink's
// topic/partition/offset get their own columns), paged so a 1,000-partition sink stays light.
import { html, raw, type Html } from '../html.js';

export const PAGE_SIZE = 100;

export interface Paged<T> {
  rows: T[];
  page: number;
  pages: number;
  total: number;
  first: number;
}

export function pageOf<T>(all: T[], page: number, size = PAGE_SIZE): Paged<T> {
  const pages = Math.max(1, Math.ceil(all.length / size));
  const p = Math.min(Math.max(1, Number.isFinite(page) ? Math.trunc(page) : 1), pages);
  const first = (p - 1) * size;
  return { rows: all.slice(first, first + size), page: p, pages, total: all.length, first };
}

export interface OffsetEntryLike {
  partition?: Record<string, unknown>;
  offset?: Record<string, unknown> | null;
}

export function isSinkPartition(p: Record<string, unknown> | undefined): boolean {
  return p !== undefined && 'kafka_topic' in p && 'kafka_partition' in p;
}

export function json(value: unknown): string {
  return value === null || value === undefined ? '(none)' : JSON.stringify(value);
}

/** Sorted for display: sink partitions by topic then number, others by their JSON. */
export function sortEntries<T extends OffsetEntryLike>(entries: T[]): T[] {
  return entries.slice().sort((a, b) => {
    const pa = a.partition ?? {};
    const pb = b.partition ?? {};
    if (isSinkPartition(pa) && isSinkPartition(pb)) {
      const t = String(pa.kafka_topic).localeCompare(String(pb.kafka_topic));
      return t !== 0 ? t : Number(pa.kafka_partition) - Number(pb.kafka_partition);
    }
    return JSON.stringify(pa).localeCompare(JSON.stringify(pb));
  });
}

export function pager(base: string, paged: Paged<unknown>, label: string): Html {
  if (paged.pages <= 1) return html``;
  const sep = base.includes('?') ? '&' : '?';
  const link = (p: number, text: string, rel: string): Html => html`<a href="${base}${sep}page=${p}" rel="${rel}">${text}</a>`;
  return html`<nav class="pager" aria-label="${label} pages">
${paged.page > 1 ? link(1, '« First', 'first') : ''} ${paged.page > 1 ? link(paged.page - 1, '‹ Previous', 'prev') : ''}
<span>Page ${paged.page} of ${paged.pages} (rows ${paged.first + 1}–${paged.first + paged.rows.length} of ${paged.total})</span>
${paged.page < paged.pages ? link(paged.page + 1, 'Next ›', 'next') : ''} ${paged.page < paged.pages ? link(paged.pages, 'Last »', 'last') : ''}
</nav>`;
}

export interface LogPositions {
  /** Keyed by `topic/partition`. */
  [key: string]: { logStart?: number; logEnd?: number; lag?: number };
}

/** The read-only offsets table. `positions` columns appear only when the bridge provides them. */
export function offsetsTable(entries: OffsetEntryLike[], paged: Paged<OffsetEntryLike>, options: { positions?: LogPositions; caption: string }): Html {
  const sink = entries.length > 0 && entries.every((e) => isSinkPartition(e.partition));
  const withPositions = sink && options.positions !== undefined;
  return html`<div class="scroll"><table class="data offsets">
<caption>${options.caption}</caption>
<thead><tr>${sink
    ? html`<th scope="col">Topic</th><th scope="col" class="num">Partition</th><th scope="col" class="num">Offset</th>${withPositions ? raw('<th scope="col" class="num">Log start</th><th scope="col" class="num">Log end</th><th scope="col" class="num">Lag</th>') : ''}`
    : html`<th scope="col">Partition</th><th scope="col">Offset</th>`}</tr></thead>
<tbody>
${paged.rows.map((e) => {
    const p = e.partition ?? {};
    if (sink) {
      const pos = options.positions?.[`${String(p.kafka_topic)}/${String(p.kafka_partition)}`];
      return html`<tr><td>${String(p.kafka_topic)}</td><td class="num">${String(p.kafka_partition)}</td><td class="num">${e.offset ? String(e.offset.kafka_offset) : '(none)'}</td>${withPositions ? html`<td class="num">${pos?.logStart ?? ''}</td><td class="num">${pos?.logEnd ?? ''}</td><td class="num">${pos?.lag ?? ''}</td>` : ''}</tr>`;
    }
    return html`<tr><td><code>${json(p)}</code></td><td><code>${json(e.offset)}</code></td></tr>`;
  })}
</tbody></table></div>`;
}
