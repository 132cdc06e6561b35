// Lint rules that know Kafka Connect's REST API (registered by the CLI's `workflow lint`; the
// engine knows nothing of Connect). Each rule recognises steps by the HTTP operation they call
// (method + path template, as in the Connect OpenAPI description), so it works whatever the
// operationIds or source names of a document are. Facts behind each rule: docs/arazzo-choices.md
// ("Lint") and the Kafka Connect notes.
import { criteriaText, hasRetry, stepRule, type LintRule, type LintStep } from '../arazzo/lint/index.js';

const is = (s: LintStep, method: string, path: RegExp): boolean => s.operation?.method === method && path.test(s.operation.path);
const STOP = /^\/connectors\/\{[^}]+\}\/stop$/;
const OFFSETS = /^\/connectors\/\{[^}]+\}\/offsets$/;
const STATUS = /^\/connectors\/\{[^}]+\}\/status$/;
const RESTART = /^\/connectors\/\{[^}]+\}\/restart$/;
const PAUSE_RESUME = /^\/connectors\/\{[^}]+\}\/(pause|resume)$/;
const CREATE = /^\/connectors\/?$/;

/** A status read that polls (retries) until the connector is STOPPED; `tasks` tells whether it also waits for no tasks. */
function waitsForStopped(s: LintStep): { stopped: boolean; tasks: boolean } {
  if (!is(s, 'GET', STATUS)) return { stopped: false, tasks: false };
  const text = criteriaText(s.step.successCriteria);
  const stopped = /STOPPED/i.test(text) && hasRetry(s);
  return { stopped, tasks: stopped && /tasks/.test(text) };
}

const offsetsAfterStop = stepRule({
  id: 'connect/offsets-after-stop-without-wait',
  severity: 'error',
  description:
    'PATCH/DELETE /connectors/{c}/offsets after PUT .../stop with no step that waits for STOPPED with no tasks: stop is asynchronous, Connect refuses offset changes until then',
  check(s, { workflow: w }) {
    if (!is(s, 'PATCH', OFFSETS) && !is(s, 'DELETE', OFFSETS)) return undefined;
    const before = w.steps.slice(0, s.index);
    const stopAt = before.findLastIndex((p) => is(p, 'PUT', STOP));
    if (stopAt === -1) return undefined;
    const waits = before.slice(stopAt + 1).map(waitsForStopped);
    if (waits.some((x) => x.stopped && x.tasks)) return undefined;
    const partly = waits.some((x) => x.stopped);
    const retried = hasRetry(s, /400|409|STOPPED/i);
    return `step "${s.step.stepId}" ${s.operation!.method}s the offsets after step "${w.steps[stopAt]!.step.stepId}" stopped the connector, but ${partly ? 'the wait checks STOPPED and not that no tasks remain' : 'no step in between waits for STOPPED with no tasks'}: stop is asynchronous and Connect answers 400 until the connector is STOPPED and its tasks are gone${retried ? ' (a retry on this step only papers over it)' : ''}. Add a GET .../status step whose criteria require connector.state == 'STOPPED' and an empty tasks list, with a retry action`;
  },
});

const stateAfterAsync = stepRule({
  id: 'connect/state-assertion-without-retry',
  severity: 'warning',
  description:
    "a connector.state == 'PAUSED'|'RUNNING' check right after pause, resume, restart or create, with no retry: those calls return before the state changes",
  check(s, { prev }) {
    if (!prev || !(is(prev, 'PUT', PAUSE_RESUME) || is(prev, 'POST', RESTART) || is(prev, 'POST', CREATE))) return undefined;
    const text = criteriaText(s.step.successCriteria);
    if (!/state/i.test(text) || !/PAUSED|RUNNING/.test(text) || hasRetry(s)) return undefined;
    return `step "${s.step.stepId}" checks the connector state right after "${prev.step.stepId}" (${prev.operation!.method} ${prev.operation!.path}), which returns before the state changes; add a failure action of type retry (e.g. retryAfter: 0.5, retryLimit: 60) so it polls`;
  },
});

const restartExpects202 = stepRule({
  id: 'connect/restart-expects-200-204',
  severity: 'warning',
  description: 'POST /connectors/{c}/restart that accepts only 200/204: with includeTasks or onlyFailed Connect answers 202 Accepted',
  check(s) {
    if (!is(s, 'POST', RESTART)) return undefined;
    const text = criteriaText(s.step.successCriteria);
    if (!/statusCode/.test(text) || /202|2\d\d|\^2|\[2/.test(text.replace(/20[04]/g, ''))) return undefined;
    return `step "${s.step.stepId}" restarts the connector but its success criteria accept only ${/204/.test(text) ? '204' : '200'}: with includeTasks=true or onlyFailed=true Connect answers 202; accept 202 too (e.g. $statusCode == 202 || $statusCode == 204)`;
  },
});

const statusAfterCreate = stepRule({
  id: 'connect/status-after-create-without-404-retry',
  severity: 'warning',
  description:
    'GET /connectors/{c}/status right after POST /connectors with no retry on 404: the status exists only once the connector is assigned to a worker',
  check(s, { prev }) {
    if (!prev || !is(prev, 'POST', CREATE) || !is(s, 'GET', STATUS) || hasRetry(s, /404/)) return undefined;
    return `step "${s.step.stepId}" reads the status right after "${prev.step.stepId}" created the connector; Connect answers 404 until a worker has it: add a retry failure action with criteria $statusCode == 404`;
  },
});

export const CONNECT_RULES: readonly LintRule[] = [offsetsAfterStop, stateAfterAsync, restartExpects202, statusAfterCreate];
