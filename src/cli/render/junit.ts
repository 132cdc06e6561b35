// `--output junit`: one testsuite per workflow run, one testcase per visit of a step (its retries
// are attempts of that case), so CI systems show which step failed and why.
import type { StepResult, WorkflowResult } from '../../arazzo/index.js';
import { redactText } from '../../http/redact.js';

function escapeXml(text: string): string {
  // Characters XML 1.0 cannot carry at all are dropped; the rest are escaped.
  return text
    .replace(/[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

/**
 * One test case per visit of a step: its retries (a poll until Connect shows a state, a retried
 * 409) are attempts of that case, not cases of their own. The case is what its last attempt was:
 * a poll that ends in a pass passes, and says in <system-out> what the earlier attempts saw.
 */
interface StepCase {
  attempts: StepResult[];
}

function casesOf(steps: readonly StepResult[]): StepCase[] {
  const cases: StepCase[] = [];
  // The visit of each step still open for retries (dependsOn may interleave different steps).
  const open = new Map<string, StepCase>();
  for (const step of steps) {
    const key = `${step.workflowId}\u0000${step.stepId}`;
    const visit = step.attempt > 1 ? open.get(key) : undefined;
    if (visit) visit.attempts.push(step);
    else {
      const c = { attempts: [step] };
      cases.push(c);
      open.set(key, c);
    }
  }
  return cases;
}

function reasonsOf(step: StepResult): string[] {
  return [
    ...(step.request ? [`${step.request.method} ${step.request.url}${step.response ? ` → ${step.response.status}` : ''}`] : []),
    ...step.failedCriteria.map((c) => `criterion failed: ${c.message ?? c.condition}`),
    ...(step.error ? [`error [${step.error.code}]: ${step.error.message}`] : []),
    ...(step.action ? [`action: ${step.action.type} "${step.action.name}"`] : []),
  ];
}

/** What the earlier attempts saw, shortest first: their first failed criterion or error. */
function earlierAttempts(attempts: readonly StepResult[]): string {
  return attempts.map((a) => `attempt ${a.attempt}: ${a.failedCriteria[0] ? `criterion failed: ${a.failedCriteria[0].message ?? a.failedCriteria[0].condition}` : a.error ? `error [${a.error.code}]: ${a.error.message}` : a.status}`).join('\n');
}

function testcase(c: StepCase): string {
  const last = c.attempts[c.attempts.length - 1] as StepResult;
  const n = c.attempts.length;
  const name = n > 1 ? `${last.stepId} (${n} attempts)` : last.attempt > 1 ? `${last.stepId} (attempt ${last.attempt})` : last.stepId;
  const time = c.attempts.reduce((sum, a) => sum + a.durationMs, 0);
  const open = `    <testcase classname="${escapeXml(last.workflowId)}" name="${escapeXml(name)}" time="${seconds(time)}"`;
  const earlier = n > 1 ? redactText(earlierAttempts(c.attempts.slice(0, -1))) : '';
  if (last.status === 'passed') {
    if (n === 1) return `${open}/>`;
    return `${open}>\n      <system-out>${escapeXml(`passed on attempt ${last.attempt}; ${earlier}`)}</system-out>\n    </testcase>`;
  }
  const reasons = reasonsOf(last);
  const message = last.error?.message ?? last.failedCriteria[0]?.message ?? last.failedCriteria[0]?.condition ?? 'step failed';
  const out = n > 1 ? `\n      <system-out>${escapeXml(earlier)}</system-out>` : '';
  return `${open}>\n      <failure message="${escapeXml(redactText(message))}" type="${escapeXml(last.error?.code ?? 'E_CRITERIA')}">${escapeXml(redactText(reasons.join('\n')))}</failure>${out}\n    </testcase>`;
}

export function renderJunit(result: WorkflowResult): string {
  const visits = casesOf(result.steps);
  const failures = visits.filter((c) => c.attempts[c.attempts.length - 1]?.status === 'failed').length;
  const total = result.steps.reduce((sum, s) => sum + s.durationMs, 0);
  const cases = visits.map(testcase);
  if (result.error && result.steps.length === 0) {
    // A refused run still gives CI one failing test case to show.
    cases.push(`    <testcase classname="${escapeXml(result.workflowId)}" name="(run)" time="0.000">\n      <failure message="${escapeXml(redactText(result.error.message))}" type="${escapeXml(result.error.code)}"/>\n    </testcase>`);
  }
  const failureCount = failures + (result.error && result.steps.length === 0 ? 1 : 0);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="offsetctl workflow run" tests="${cases.length}" failures="${failureCount}" time="${seconds(total)}">`,
    `  <testsuite name="${escapeXml(result.workflowId)}" tests="${cases.length}" failures="${failureCount}" errors="0" time="${seconds(total)}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
