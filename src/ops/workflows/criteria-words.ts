// What the regex criteria of the shipped workflows expect, in words. A regex such as
// `^\[\s*\{(?![\s\S]*"state"\s*:\s*"(?!RUNNING"))` is exact but unreadable at 3 a.m.: the run's
// account (failure-text.ts) and `runs show` say what was expected, with the regex after it.
// A criterion not in this table (another workflow's, `workflow run`) keeps its own text.

/** A criterion as the engine reports it (CriterionResult) or the journal stores it. */
export interface CriterionText {
  type?: string;
  condition: string;
  context?: string;
}

const EMPTY_LIST = String.raw`^\[\s*\]$`;

const WORDS: Readonly<Record<string, string>> = {
  [String.raw`^(?![\s\S]*"state"\s*:\s*"FAILED")`]: 'no connector or task in state FAILED',
  [String.raw`^\[\s*\{(?![\s\S]*"state"\s*:\s*"(?!RUNNING"))`]: 'at least one task, and every task RUNNING',
  // Connect keeps the task statuses of a deleted connector (UNASSIGNED, version null) and shows them
  // for a new one of the same name, stopped, for good: a stopped connector's list is empty or only those.
  [String.raw`^\[(?![\s\S]*"state"\s*:\s*"(?!UNASSIGNED"))`]: 'no task that runs (none listed, or only UNASSIGNED ones)',
  [String.raw`^\[(?![\s\S]*"offset"\s*:\s*\{)`]: 'no offsets (no partition with an offset)',
  [String.raw`^\[(?=[\s\S]*"offset"\s*:\s*\{)`]: 'at least one partition with an offset',
  [String.raw`^(?![\s\S]*already exists)`]: 'Connect\'s message not saying "already exists"',
  'already exists': 'Connect\'s message saying "already exists"',
  'can be safely retried': 'Connect\'s message saying the request "can be safely retried"',
  'rebalance is expected': 'Connect\'s message saying "rebalance is expected"',
};

/** What the criterion expects, in words; undefined for one this table does not know. */
export function criterionWords(c: CriterionText): string | undefined {
  if (c.type !== undefined && c.type !== 'regex') return undefined;
  if (c.condition === EMPTY_LIST) {
    if (c.context?.endsWith('#/tasks')) return 'no tasks (an empty task list)';
    if (c.context !== undefined && /offsets/i.test(c.context)) return 'no offsets (an empty list)';
    return 'an empty list';
  }
  return WORDS[c.condition];
}

/** `expected <words> (regex <condition> on <context>)`, or the condition as it is. */
export function describeCriterion(c: CriterionText): string {
  const words = criterionWords(c);
  if (!words) return c.condition;
  return `expected ${words} (regex ${c.condition}${c.context ? ` on ${c.context}` : ''})`;
}
