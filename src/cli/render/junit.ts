// `--output junit`: one testsuite per workflow run, one testcase per step execution, so CI
// systems show which step failed and why.
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

function testcase(step: StepResult): string {
  const name = step.attempt > 1 ? `${step.stepId} (attempt ${step.attempt})` : step.stepId;
  const open = `    <testcase classname="${escapeXml(step.workflowId)}" name="${escapeXml(name)}" time="${seconds(step.durationMs)}"`;
  if (step.status === 'passed') return `${open}/>`;
  const reasons = [
    ...(step.request ? [`${step.request.method} ${step.request.url}${step.response ? ` → ${step.response.status}` : ''}`] : []),
    ...step.failedCriteria.map((c) => `criterion failed: ${c.message ?? c.condition}`),
    ...(step.error ? [`error [${step.error.code}]: ${step.error.message}`] : []),
    ...(step.action ? [`action: ${step.action.type} "${step.action.name}"`] : []),
  ];
  const message = step.error?.message ?? step.failedCriteria[0]?.message ?? step.failedCriteria[0]?.condition ?? 'step failed';
  return `${open}>\n      <failure message="${escapeXml(redactText(message))}" type="${escapeXml(step.error?.code ?? 'E_CRITERIA')}">${escapeXml(redactText(reasons.join('\n')))}</failure>\n    </testcase>`;
}

export function renderJunit(result: WorkflowResult): string {
  const failures = result.steps.filter((s) => s.status === 'failed').length;
  const total = result.steps.reduce((sum, s) => sum + s.durationMs, 0);
  const cases = result.steps.map(testcase);
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
