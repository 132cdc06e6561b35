// The verbs' half of the CLI's lazy-loading seam (the heavy libraries' half is src/cli/load.ts):
// the only place that maps a top-level verb to the module registering it. A known verb loads
// only its own module (`connectors` never loads the workflow, sandbox or console registrations);
// help, typos and a flag first load them all. Registration modules are cheap (options and help);
// their actions reach what they need through src/cli/load.ts. test/project/lazy-seam.test.ts
// keeps import() here and in the load.ts seam files (src/cli, src/ops, src/store, src/web).
import type { Command } from 'commander';

/** What a verb's module gives: it registers its verbs on the program. */
export interface VerbModule {
  register(program: Command): void;
}

type LoadVerbModule = () => Promise<VerbModule>;

/** Every verb module, once, in the order they register (help lists the verbs by task, not in this order). */
const MODULES = {
  workflow: () => import('./commands/workflow.js'),
  sandbox: () => import('./commands/sandbox.js'),
  cluster: () => import('./commands/cluster.js'),
  ops: () => import('./commands/ops.js'),
  move: () => import('./commands/move.js'),
  ui: () => import('./commands/ui.js'),
  lifecycle: () => import('./commands/lifecycle.js'),
  version: () => import('./commands/version.js'),
  completion: () => import('./commands/completion.js'),
  apply: () => import('./commands/apply.js'),
  changes: () => import('./commands/changes.js'),
  audit: () => import('./commands/audit.js'),
  store: () => import('./commands/store.js'),
  policy: () => import('./commands/policy.js'),
  replay: () => import('./commands/replay.js'),
} satisfies Record<string, LoadVerbModule>;

/** The module that registers each top-level verb (see `register` in each module). */
export const OWN_GROUP: Record<string, LoadVerbModule> = {
  workflow: MODULES.workflow,
  connectors: MODULES.cluster,
  offsets: MODULES.cluster,
  config: MODULES.cluster,
  rewind: MODULES.ops,
  apply: MODULES.apply,
  changes: MODULES.changes,
  reset: MODULES.ops,
  rollback: MODULES.ops,
  runs: MODULES.ops,
  snapshots: MODULES.ops,
  audit: MODULES.audit,
  store: MODULES.store,
  policy: MODULES.policy,
  move: MODULES.move,
  copy: MODULES.move,
  export: MODULES.move,
  import: MODULES.move,
  replay: MODULES.replay,
};

/** Every verb module (help, a typo, a flag first: every verb must be known). */
export function allVerbModules(): Promise<VerbModule[]> {
  return Promise.all(Object.values(MODULES).map((load): Promise<VerbModule> => load()));
}
