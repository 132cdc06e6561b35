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

const workflow: LoadVerbModule = () => import('./commands/workflow.js');
const cluster: LoadVerbModule = () => import('./commands/cluster.js');
const ops: LoadVerbModule = () => import('./commands/ops.js');
const move: LoadVerbModule = () => import('./commands/move.js');

/** The module that registers each top-level verb (see `register` in each module). */
export const OWN_GROUP: Record<string, LoadVerbModule> = {
  workflow,
  connectors: cluster,
  offsets: cluster,
  config: cluster,
  rewind: ops,
  apply: () => import('./commands/apply.js'),
  changes: () => import('./commands/changes.js'),
  reset: ops,
  rollback: ops,
  runs: ops,
  snapshots: ops,
  audit: () => import('./commands/audit.js'),
  store: () => import('./commands/store.js'),
  policy: () => import('./commands/policy.js'),
  move,
  copy: move,
  export: move,
  import: move,
  replay: () => import('./commands/replay.js'),
};

/** Every verb module, in the order they register (help lists them by task, not in this order). */
export function allVerbModules(): Promise<VerbModule[]> {
  return Promise.all([
    workflow(), import('./commands/sandbox.js'), cluster(), ops(), move(),
    import('./commands/ui.js'), import('./commands/lifecycle.js'), import('./commands/version.js'), import('./commands/completion.js'),
    import('./commands/apply.js'), import('./commands/changes.js'), import('./commands/audit.js'),
    import('./commands/store.js'), import('./commands/policy.js'), import('./commands/replay.js'),
  ]);
}
