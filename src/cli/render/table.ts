// Plain-text tables for operator output: left-aligned columns two spaces apart, numbers right-
// aligned when asked, headers upper-case (as kubectl). Widths are measured in one pass, so
// 100,000 rows stay cheap.

export type Align = 'left' | 'right';

/**
 * @example renderTable(['NAME', 'STATE'], [['my-sink', 'RUNNING']]) // "NAME     STATE\nmy-sink  RUNNING"
 */
export function renderTable(headers: readonly string[], rows: ReadonlyArray<readonly string[]>, align: readonly Align[] = []): string {
  // Headers in one case everywhere, also where they are data keys (offset fields like kafka_topic).
  headers = headers.map((h) => h.toUpperCase());
  const widths = headers.map((h) => h.length);
  for (const row of rows) {
    for (let c = 0; c < headers.length; c++) {
      const len = (row[c] ?? '').length;
      if (len > (widths[c] ?? 0)) widths[c] = len;
    }
  }
  const format = (cells: readonly string[]): string => {
    let line = '';
    for (let c = 0; c < headers.length; c++) {
      const cell = cells[c] ?? '';
      const width = widths[c] ?? 0;
      const last = c === headers.length - 1;
      const padded = align[c] === 'right' ? cell.padStart(width) : last ? cell : cell.padEnd(width);
      line += (c === 0 ? '' : '  ') + padded;
    }
    return line.trimEnd();
  };
  const lines = [format(headers)];
  for (const row of rows) lines.push(format(row));
  return lines.join('\n');
}
