// The one place where error codes become exit statuses:
// 0 done, 1 ran and failed, 2 refused before any request or change.
import { REFUSAL_CODES, formatLocation, type ArazzoErrorCode } from '../arazzo/errors.js';
import { redactText } from '../http/redact.js';

/** Codes from layers above the engine that also mean "refused before anything changed". */
const OTHER_REFUSALS = new Set(['E_USAGE', 'E_CONFIG', 'E_PREFLIGHT', 'E_OFFSETS_INVALID', 'E_CONNECTOR_NOT_FOUND', 'E_LOCKED', 'E_NOT_CONFIRMED', 'E_SANDBOX_PREREQ', 'E_SANDBOX_PORT_TAKEN', 'E_SANDBOX_BUSY', 'E_STORE']);

export function exitStatusFor(err: unknown): number {
  const code = (err as { code?: unknown })?.code;
  if (typeof code === 'string' && (REFUSAL_CODES.has(code as ArazzoErrorCode) || OTHER_REFUSALS.has(code))) return 2;
  return 1;
}

export function formatError(err: unknown): string {
  const e = err as { code?: string; message?: string; location?: Parameters<typeof formatLocation>[0]; diagnostics?: Array<{ message: string; file?: string; line?: number; column?: number; pointer?: string }> };
  const lines: string[] = [];
  const where = formatLocation(e.location);
  const message = e.message ?? String(err);
  // Loader messages may already start with their location: do not print it twice.
  const prefix = where && !message.startsWith(where) ? `${where}: ` : '';
  lines.push(`error${e.code ? ` [${e.code}]` : ''}: ${prefix}${message}`);
  for (const d of e.diagnostics ?? []) {
    const loc = formatLocation(d);
    lines.push(`  ${loc ? loc + ': ' : ''}${d.message}${d.pointer ? ` (at ${d.pointer})` : ''}`);
  }
  return redactText(lines.join('\n'));
}
