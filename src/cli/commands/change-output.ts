// What a change prints: the plan (heading, position table, warnings, diff, targets beyond the
// end) before the question, and the outcome after the run. Human lines go to stdout in text
// mode and to stderr with --output json, where stdout carries only the outcome. Every part is
// written as it is made (say.ts, writeLines), so the cost grows with the partitions, not with
// their square, and a closed pipe ends the command at once (bench/dry-run-output.ts).
import type { OperationOutcome, Plan } from '../../ops/index.js';
import { diffLines } from '../render/diff.js';
import { describeForwardTargets } from '../render/forward-targets.js';
import { planHeading } from '../render/ops-plan.js';
import { renderPositions } from '../render/positions.js';
import { writeLines, writeText } from './say.js';

export interface ShowOptions {
  json: boolean;
  color: boolean;
  /** The worker that answered the plan's reads (default: the plan's URL). */
  answeredBy?: string;
  /** Lines right under the heading (whose run is taken over). */
  afterHeading?: string[];
}

/** Warnings shown one per line; beyond this a count says how many more there are. */
const WARNINGS_SHOWN = 20;

export async function showPlan(plan: Plan, o: ShowOptions): Promise<void> {
  const human = o.json ? 'stderr' : 'stdout';
  await writeLines(human, [planHeading(plan, o.answeredBy), ...(o.afterHeading ?? [])]);
  // What the connector's profile read (a Debezium source's slot, a sink's insert mode): before the warnings it explains.
  if (plan.profile) await writeLines(human, plan.profile.facts.map((f) => `  ${f}`));
  if (plan.positions) await writeLines(human, [renderPositions(plan.positions)]);
  // Warnings go to stderr in every mode (and into the JSON outcome), before the question.
  await writeLines('stderr', warningLines(plan.warnings));
  // Resuming changes offsets like any change: its diff is shown and asked about too.
  await writeLines(human, diffLines(plan.diff, { color: o.color, showUnchanged: plan.diff.entries.length <= 50 }));
  await writeLines(human, describeForwardTargets(plan.forwardTargets));
}

export async function showOutcome(plan: Plan, outcome: OperationOutcome, o: ShowOptions): Promise<void> {
  if (o.json) {
    await writeText('stdout', `${JSON.stringify(outcome, null, 2)}\n`);
    return;
  }
  // The plan's warnings were shown before the question; only the run's own are new.
  const shown = new Set(plan.warnings);
  await writeLines('stderr', warningLines(outcome.warnings.filter((w) => !shown.has(w))));
  if (outcome.status !== 'failed') await writeLines('stdout', [outcome.message]);
}

/** `warning: …` lines, at most WARNINGS_SHOWN of them and a count of the rest (all are in --output json). */
export function warningLines(warnings: readonly string[]): string[] {
  const lines = warnings.slice(0, WARNINGS_SHOWN).map((w) => `warning: ${w}`);
  if (warnings.length > WARNINGS_SHOWN) lines.push(`warning: … and ${warnings.length - WARNINGS_SHOWN} more warning(s); --output json lists every one`);
  return lines;
}
