// `workflow lint`: rules with ids and severities over a valid document. The engine and the
// generic rules live here; domain rules (Kafka Connect's, in src/connect-lint) are given by the
// caller. A rule sees each step with the HTTP operation it calls (method and path template) when
// the sources resolve, so rules can reason about what a step does without knowing any client.
import type { LoadedDocument } from '../document/index.js';
import type { SourceRegistry } from '../sources/index.js';
import type { Criterion, FailureAction, Step, SuccessAction, Workflow } from '../types.js';
import { resolveActions } from '../runner/index.js';
import type { ArazzoDocument, Components } from '../types.js';

export type LintSeverity = 'error' | 'warning' | 'info';

export interface LintFinding {
  rule: string;
  severity: LintSeverity;
  message: string;
  pointer: string;
  file: string;
  line?: number;
  column?: number;
}

/** A step as rules see it: the step, where it is, and the operation it calls (when resolvable). */
export interface LintStep {
  step: Step;
  index: number;
  pointer: string;
  /** `PUT`, `/connectors/{connector}/stop`; absent for workflow and message steps or unresolved operations. */
  operation?: { method: string; path: string };
  /** Failure actions with reusable references resolved (the step's own, then the workflow's). */
  onFailure: FailureAction[];
  onSuccess: SuccessAction[];
}

export interface LintWorkflow {
  workflow: Workflow;
  pointer: string;
  steps: LintStep[];
}

export interface LintContext {
  doc: LoadedDocument;
  root: ArazzoDocument;
  workflows: LintWorkflow[];
  /** Every string in the document, for "is this referenced anywhere" checks. */
  text: string;
}

export interface LintRule {
  id: string;
  severity: LintSeverity;
  /** One line: what the rule looks for and why. */
  description: string;
  check(ctx: LintContext, report: (pointer: string, message: string) => void): void;
}

/** Lints a document that passed validation. `registry` (sources loaded) lets rules see operations. */
export function lintDocument(doc: LoadedDocument, registry: SourceRegistry | undefined, rules: readonly LintRule[]): LintFinding[] {
  const root = doc.value as ArazzoDocument;
  const components = root.components;
  const workflows: LintWorkflow[] = (root.workflows ?? []).map((workflow, w) => ({
    workflow,
    pointer: `/workflows/${w}`,
    steps: (workflow.steps ?? []).map((step, index) => lintStep(registry, components, workflow, step, index, `/workflows/${w}/steps/${index}`)),
  }));
  const ctx: LintContext = { doc, root, workflows, text: JSON.stringify(root) };
  const findings: LintFinding[] = [];
  for (const rule of rules) {
    rule.check(ctx, (pointer, message) => {
      const finding: LintFinding = { rule: rule.id, severity: rule.severity, message, pointer, file: doc.file };
      const at = doc.locate(pointer);
      if (at) Object.assign(finding, at);
      findings.push(finding);
    });
  }
  return findings.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || a.rule.localeCompare(b.rule));
}

function lintStep(registry: SourceRegistry | undefined, components: Components | undefined, workflow: Workflow, step: Step, index: number, pointer: string): LintStep {
  const safe = <T>(f: () => T[]): T[] => {
    try {
      return f();
    } catch {
      return [];
    }
  };
  const entry: LintStep = {
    step,
    index,
    pointer,
    onFailure: [...safe(() => resolveActions<FailureAction>(step.onFailure, components, 'failureActions', pointer)), ...safe(() => resolveActions<FailureAction>(workflow.failureActions, components, 'failureActions', pointer))],
    onSuccess: [...safe(() => resolveActions<SuccessAction>(step.onSuccess, components, 'successActions', pointer)), ...safe(() => resolveActions<SuccessAction>(workflow.successActions, components, 'successActions', pointer))],
  };
  if (registry && step.workflowId === undefined && step.action === undefined && step.channelPath === undefined) {
    try {
      const op = registry.resolveOperation(step);
      entry.operation = { method: op.method, path: op.pathTemplate };
    } catch {
      // Unresolvable operations are validate's to report.
    }
  }
  return entry;
}

// ---------------------------------------------------------------------------------------------
// Helpers for rules

/** A finding as a rule states it; lintDocument adds the rule, severity, file and position. */
export interface RuleFinding {
  pointer: string;
  message: string;
}

type RuleHead = Omit<LintRule, 'check'>;

/** A rule that looks at one workflow at a time, in document order, and returns what it found there. */
export function workflowRule(rule: RuleHead & { check(workflow: LintWorkflow, ctx: LintContext): RuleFinding[] }): LintRule {
  const { check, ...head } = rule;
  return {
    ...head,
    check(ctx, report) {
      for (const workflow of ctx.workflows) for (const f of check(workflow, ctx)) report(f.pointer, f.message);
    },
  };
}

/** Where a step stands, for a rule that looks at one step at a time. */
export interface StepSite {
  ctx: LintContext;
  workflow: LintWorkflow;
  /** The step listed just before this one in its workflow (none for the first). */
  prev: LintStep | undefined;
}

/**
 * A rule that looks at every step of every workflow, in document order: `check` returns nothing,
 * a message about the step itself, or findings at pointers (e.g. inside the step). Most rules,
 * generic or domain, are this.
 */
export function stepRule(rule: RuleHead & { check(step: LintStep, site: StepSite): string | RuleFinding[] | undefined }): LintRule {
  const { check, ...head } = rule;
  return workflowRule({
    ...head,
    check: (workflow, ctx) =>
      workflow.steps.flatMap((step, i) => {
        const found = check(step, { ctx, workflow, prev: workflow.steps[i - 1] });
        return typeof found === 'string' ? [{ pointer: step.pointer, message: found }] : (found ?? []);
      }),
  });
}

/** A name as one token of a JSON pointer (RFC 6901: `~` and `/` escaped). */
export function pointerToken(name: string): string {
  return name.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function criteriaText(criteria: readonly Criterion[] | undefined): string {
  return (criteria ?? []).map((c) => `${c.context ?? ''} ${c.condition}`).join(' \n ');
}

/** A failure action that retries the step (at all, or when the given status/text is in its criteria). */
export function hasRetry(step: LintStep, mentioning?: RegExp): boolean {
  return step.onFailure.some((a) => a.type === 'retry' && (mentioning === undefined || (a.criteria ?? []).length === 0 || mentioning.test(criteriaText(a.criteria))));
}

// ---------------------------------------------------------------------------------------------
// Generic rules

const unusedOutput = stepRule({
  id: 'unused-output',
  severity: 'warning',
  description: 'a step output that nothing reads ($steps.<id>.outputs.<name>) is dead weight or a typo elsewhere',
  check: (s, { ctx }) =>
    Object.keys(s.step.outputs ?? {}).flatMap((name) => {
      const ref = `$steps.${s.step.stepId}.outputs.${name}`;
      if (ctx.text.includes(ref)) return [];
      return [{ pointer: `${s.pointer}/outputs/${pointerToken(name)}`, message: `output "${name}" of step "${s.step.stepId}" is never read (no ${ref} anywhere); use it (e.g. in the workflow's outputs) or remove it` }];
    }),
});

const unusedInput = workflowRule({
  id: 'unused-input',
  severity: 'warning',
  description: 'a declared workflow input that no expression reads',
  check(w, ctx) {
    const inputs = w.workflow.inputs as { properties?: Record<string, unknown> } | undefined;
    const body = JSON.stringify(w.workflow);
    return Object.keys(inputs?.properties ?? {}).flatMap((name) => {
      // Workflows that depend on this one receive the same inputs and may read them.
      const dependents = ctx.workflows.filter((o) => (o.workflow.dependsOn ?? []).includes(w.workflow.workflowId));
      const read = [body, ...dependents.map((d) => JSON.stringify(d.workflow))].some((t) => new RegExp(`\\$inputs\\.${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![A-Za-z0-9_-])`).test(t));
      if (read) return [];
      return [{ pointer: `${w.pointer}/inputs/properties/${pointerToken(name)}`, message: `input "${name}" of workflow "${w.workflow.workflowId}" is declared but never read ($inputs.${name}); remove it or use it` }];
    });
  },
});

/** Steps reachable from the first: fall-through on success, goto targets, retry side steps. */
const unreachableStep = workflowRule({
  id: 'unreachable-step',
  severity: 'warning',
  description: 'a step no path reaches (every step before it jumps away or ends)',
  check(w) {
    if (w.steps.some((s) => s.step.dependsOn !== undefined)) return []; // order follows dependencies
    const ids = new Map(w.steps.map((s) => [s.step.stepId, s.index]));
    const reached = new Set<number>();
    const queue = [0];
    while (queue.length > 0) {
      const i = queue.pop()!;
      if (reached.has(i) || i >= w.steps.length) continue;
      reached.add(i);
      const s = w.steps[i]!;
      const unconditional = s.onSuccess.find((a) => (a.criteria ?? []).length === 0);
      if (!unconditional) queue.push(i + 1);
      for (const a of [...s.onSuccess, ...s.onFailure]) if (a.stepId !== undefined && ids.has(a.stepId)) queue.push(ids.get(a.stepId)!);
    }
    return w.steps.filter((s) => !reached.has(s.index)).map((s) => ({ pointer: s.pointer, message: `step "${s.step.stepId}" can never run: the steps before it always end or jump elsewhere; remove it or add a goto to it` }));
  },
});

const gotoLoop = stepRule({
  id: 'goto-loop-without-exit',
  severity: 'error',
  description: 'a goto back to an earlier step with no criteria, over steps that cannot fail or branch: the loop never ends',
  check: (s, { workflow: w }) =>
    s.onSuccess.flatMap((a) => {
      if (a.type !== 'goto' || a.stepId === undefined || (a.criteria ?? []).length > 0) return [];
      const target = w.steps.find((t) => t.step.stepId === a.stepId);
      if (!target || target.index > s.index) return [];
      const loop = w.steps.slice(target.index, s.index + 1);
      const exit = loop.some((l) => (l.step.successCriteria ?? []).length > 0 || l.onSuccess.some((x) => x !== a && ((x.criteria ?? []).length > 0 || x.type === 'end')));
      return exit ? [] : [{ pointer: s.pointer, message: `step "${s.step.stepId}" always goes back to "${a.stepId}" (action "${a.name}" has no criteria) and no step in between can fail or branch: the loop never ends (only the step budget stops it); add criteria to the goto or an end action` }];
    }),
});

export const GENERIC_RULES: readonly LintRule[] = [unusedOutput, unusedInput, unreachableStep, gotoLoop];
