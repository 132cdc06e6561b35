// The journal of a run as `runs show` prints it: one line per event, except that the attempts of
// a poll in between its first and its last are one line (how many, how long, what they saw). A
// 66 s wait for STOPPED was ~2,400 lines of the same six events; `--output json` keeps them all.
import type { EventRecord } from '../../store/index.js';
import { describeCriterion } from '../../ops/workflows/criteria-words.js';

/** Events from one `step.started` up to the next: one attempt of one step (or what comes before the first). */
interface Attempt {
  stepId: string | undefined;
  attempt: number;
  events: EventRecord[];
}

export function journalLines(events: readonly EventRecord[]): string[] {
  const attempts: Attempt[] = [];
  for (const e of events) {
    if (e.type === 'step.started' || attempts.length === 0) {
      const n = e.type === 'step.started' ? Number((e.detail as { attempt?: unknown }).attempt ?? 1) : 0;
      attempts.push({ stepId: e.type === 'step.started' ? e.stepId : undefined, attempt: n, events: [e] });
    } else attempts[attempts.length - 1]!.events.push(e);
  }
  const lines: string[] = [];
  for (let i = 0; i < attempts.length; ) {
    // The run of attempts 1, 2, 3 … of one step: a poll, or a retry after a 409.
    let j = i + 1;
    while (j < attempts.length && attempts[j]!.stepId === attempts[i]!.stepId && attempts[j]!.attempt === attempts[j - 1]!.attempt + 1) j++;
    const poll = attempts.slice(i, j);
    if (poll.length <= 3) for (const a of poll) lines.push(...a.events.map(eventLine));
    else {
      lines.push(...poll[0]!.events.map(eventLine));
      lines.push(collapsedLine(poll.slice(1, -1)));
      lines.push(...poll[poll.length - 1]!.events.map(eventLine));
    }
    i = j;
  }
  return lines;
}

function collapsedLine(middle: readonly Attempt[]): string {
  const first = middle[0]!;
  const last = middle[middle.length - 1]!;
  const from = first.events[0]!.at;
  const to = last.events[last.events.length - 1]!.at;
  const seconds = (Date.parse(to) - Date.parse(from)) / 1000;
  // What those attempts saw, each distinct outcome once: the answers' statuses and the criteria that failed.
  const seen = new Map<string, number>();
  for (const a of middle) {
    const outcome = a.events
      .filter((e) => e.type === 'response.received' || (e.type === 'criterion.evaluated' && (e.detail as { passed?: boolean }).passed === false))
      .map((e) => (e.type === 'response.received' ? String((e.detail as { status?: unknown }).status) : eventText(e.detail)))
      .join(', ');
    seen.set(outcome, (seen.get(outcome) ?? 0) + 1);
  }
  const outcomes = [...seen].map(([text, n]) => `${n} × ${text || 'no answer'}`).join('; ');
  return `    … attempts ${first.attempt}–${last.attempt} of ${first.stepId} (${middle.length}, ${Number.isFinite(seconds) ? seconds.toFixed(1) : '?'} s, ${from} to ${to}): ${outcomes}; every event in \`runs show --output json\``;
}

function eventLine(e: EventRecord): string {
  return `    ${e.at} ${e.type}${e.stepId ? ` ${e.stepId}` : ''} ${eventText(e.detail)}`;
}

export function eventText(detail: Record<string, unknown>): string {
  const d = detail as {
    method?: string; url?: string; worker?: string; retries?: string; status?: unknown; passed?: boolean; condition?: string; type?: string; context?: string;
    action?: { type?: string; name?: string }; error?: { message?: string }; attempt?: number;
  };
  if (d.method) return `${d.method} ${d.url}`;
  if (d.condition !== undefined) {
    const criterion = { condition: d.condition, ...(d.type ? { type: d.type } : {}), ...(d.context ? { context: d.context } : {}) };
    return `${d.passed ? 'passed' : 'failed'}: ${describeCriterion(criterion)}`;
  }
  if (d.action) return `${d.action.type} (${d.action.name})`;
  if (d.error) return `${String(d.status ?? '')} ${d.error.message ?? ''}`.trim();
  if (d.attempt !== undefined) return `attempt ${d.attempt}`;
  return d.status === undefined ? '' : `${String(d.status)}${d.worker ? ` from ${d.worker}` : ''}${d.retries ? ` (after: ${d.retries})` : ''}`;
}
