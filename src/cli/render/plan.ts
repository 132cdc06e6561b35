// Text for `workflow plan` and `workflow validate`.
import type { Diagnostic, WorkflowPlan } from '../../arazzo/index.js';
import { formatLocation } from '../../arazzo/errors.js';

export function renderPlanText(plan: WorkflowPlan): string {
  const lines: string[] = [`workflow ${plan.workflowId}: ${plan.steps.length} steps`];
  if (plan.dependsOn.length > 0) lines.push(`  depends on: ${plan.dependsOn.join(', ')}`);
  plan.steps.forEach((s, i) => {
    lines.push(`${i + 1}. ${s.stepId}`);
    if (s.waitsFor) lines.push(`     after:     ${s.waitsFor.length > 0 ? s.waitsFor.join(', ') : '(nothing: may start at once)'}`);
    if (s.operation) lines.push(`     operation: ${s.operation}`);
    if (s.request) {
      lines.push(`     request:   ${s.request.method} ${s.request.url}`);
      for (const [k, v] of Object.entries(s.request.headers)) lines.push(`     header:    ${k}: ${v}`);
      if (s.request.body !== undefined) lines.push(`     body:      ${s.request.body}`);
    }
    if (s.calls) lines.push(`     calls:     workflow ${s.calls.workflowId} with ${JSON.stringify(s.calls.inputs)}`);
    if (s.problem) lines.push(`     problem:   ${s.problem}`);
    for (const c of s.successCriteria) lines.push(`     success:   ${c}`);
    for (const a of s.onSuccess) lines.push(`     onSuccess: ${a}`);
    for (const a of s.onFailure) lines.push(`     onFailure: ${a}`);
    for (const o of s.outputs) lines.push(`     output:    ${o}`);
  });
  const outputs = Object.entries(plan.outputs);
  if (outputs.length > 0) {
    lines.push('outputs:');
    for (const [name, expr] of outputs) lines.push(`  ${name}: ${typeof expr === 'string' ? expr : JSON.stringify(expr)}`);
  }
  return lines.join('\n') + '\n';
}

export function renderDiagnosticsText(file: string, diagnostics: Diagnostic[]): string {
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  const warnings = diagnostics.length - errors;
  const lines = diagnostics.map((d) => {
    const where = formatLocation(d);
    return `${d.severity} [${d.code}] ${where ? where + ': ' : ''}${d.message}${d.pointer ? ` (at ${d.pointer})` : ''}`;
  });
  lines.push(errors === 0 ? `${file}: valid${warnings > 0 ? ` (${warnings} warnings)` : ''}` : `${file}: ${errors} errors, ${warnings} warnings`);
  return lines.join('\n') + '\n';
}
