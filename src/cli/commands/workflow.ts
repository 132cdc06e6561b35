// `offsetctl workflow run|validate|plan`: options are declared here; the implementation (and
// with it the engine) is imported only when one of these commands actually runs.
import type { Command } from 'commander';
import { addKafkaSecurityOptions } from '../kafka-settings.js';
import * as load from '../load.js';

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
  const workflow = program.command('workflow').description('validate, lint, plan, run and upgrade Arazzo 1.0.x and 1.1.x workflow documents');

  // AsyncAPI steps' Kafka security: the same flags (and the same settings layer) as the operator commands.
  addKafkaSecurityOptions(withInputOptions(withSourceOptions(workflow.command('run <file>').description('run a workflow against the APIs its source descriptions describe'))))
    .option('-o, --output <format>', 'text, json or junit', 'text')
    .option('--max-steps <n>', 'step executions allowed in one run (endless-loop guard)', '10000')
    .option('--concurrency <n>', 'Arazzo 1.1: steps of a dependsOn workflow that may run at once', '4')
    .action(async (file: string, opts: Record<string, unknown>) => {
      const impl = await load.workflowActions();
      await impl.runCommand(file, opts);
    });

  // Several files (a shell glob: workflows/*.arazzo.yaml) give one report each; one file keeps its one-document output.
  withSourceOptions(workflow.command('validate <files...>')
    .description('check workflow documents and the operations they reference (several files: one report each; JSON: an array)'))
    .option('-o, --output <format>', 'text or json', 'text')
    .action(async (files: string[], opts: Record<string, unknown>) => {
      const impl = await load.workflowActions();
      if (files.length === 1) await impl.validateCommand(files[0]!, opts);
      else await impl.validateFiles(files, opts);
    });

  withSourceOptions(workflow.command('lint <files...>')
    .description("validate's checks plus rules with ids and severities, including Kafka Connect's (exit 1 on an error finding; several files: one report each)"))
    .option('--format <format>', 'text or json', 'text')
    .option('--fix', 'first rewrite, in place, what needs no person: jsonpath criteria written as comparisons become the simple conditions they mean')
    .action(async (files: string[], opts: Record<string, unknown>) => {
      const impl = await load.workflowLint();
      if (files.length === 1) await impl.lintCommand(files[0]!, opts);
      else await impl.lintFiles(files, opts);
    });

  workflow
    .command('upgrade <file>')
    .description('rewrite an Arazzo 1.0.x document as 1.1.0 in place, keeping comments and order, and list what needs a person')
    .option('--output-file <path>', 'write the upgraded document there instead of over <file>')
    .option('--dry-run', 'print the upgraded document instead of writing it')
    .action(async (file: string, opts: Record<string, unknown>) => {
      const impl = await load.workflowUpgrade();
      await impl.upgradeCommand(file, opts);
    });

  withInputOptions(withSourceOptions(workflow.command('plan <file>').description('show the steps, operations and requests a run would make, without sending anything')))
    .option('-o, --output <format>', 'text or json', 'text')
    .action(async (file: string, opts: Record<string, unknown>) => {
      const impl = await load.workflowActions();
      await impl.planCommand(file, opts);
    });
}
