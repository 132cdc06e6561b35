// `offsetctl workflow run|validate|plan`: options are declared here; the implementation (and
// with it the engine) is imported only when one of these commands actually runs.
import type { Command } from 'commander';

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function withSourceOptions(cmd: Command): Command {
  return cmd
    .option('--source <name=path>', 'map a source description to a local file or URL (repeatable)', collect)
    .option('--server <url|name=url>', 'server URL for all sources, or for one source (repeatable)', collect)
    .option('--allow-remote', 'allow http(s) source descriptions')
    .option('--state-dir <dir>', 'state folder; workflow commands keep their cache of parsed documents there (env OFFSETCTL_STATE_DIR)');
}

function withInputOptions(cmd: Command): Command {
  return cmd
    .option('--workflow <id>', 'the workflow to use (needed when the document has several)')
    .option('--input <name=value>', 'a workflow input; the value is parsed as JSON when it is valid JSON (repeatable)', collect)
    .option('--inputs <file.json>', 'workflow inputs from a JSON file (--input values win)');
}

export function register(program: Command): void {
  const workflow = program.command('workflow').description('validate, plan and run Arazzo 1.0.1 workflow documents');

  withInputOptions(withSourceOptions(workflow.command('run <file>').description('run a workflow against the APIs its source descriptions describe')))
    .option('-o, --output <format>', 'text, json or junit', 'text')
    .option('--max-steps <n>', 'step executions allowed in one run (endless-loop guard)', '10000')
    .action(async (file: string, opts: Record<string, unknown>) => {
      const impl = await import('./workflow-actions.js');
      await impl.runCommand(file, opts);
    });

  withSourceOptions(workflow.command('validate <file>').description('check a workflow document and the operations it references'))
    .option('-o, --output <format>', 'text or json', 'text')
    .action(async (file: string, opts: Record<string, unknown>) => {
      const impl = await import('./workflow-actions.js');
      await impl.validateCommand(file, opts);
    });

  withInputOptions(withSourceOptions(workflow.command('plan <file>').description('show the steps, operations and requests a run would make, without sending anything')))
    .option('-o, --output <format>', 'text or json', 'text')
    .action(async (file: string, opts: Record<string, unknown>) => {
      const impl = await import('./workflow-actions.js');
      await impl.planCommand(file, opts);
    });
}
