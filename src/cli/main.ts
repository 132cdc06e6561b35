// Entry point. Only this module catches errors, prints them and sets the exit status.
// Command groups register their options eagerly but import their implementations lazily,
// so `offsetctl --version` loads almost nothing.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { exitStatusFor, formatError, ReportedFailure } from './exit-status.js';

export async function main(argv: string[]): Promise<void> {
  const args = argv.slice(2);
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
    process.stdout.write(`${readVersion()}\n`);
    return;
  }
  const { Command, CommanderError } = await import('commander');
  const program = new Command('offsetctl')
    .description('Safe Kafka Connect offset operations, run as Arazzo 1.0.1 workflows')
    .version(readVersion())
    .showHelpAfterError()
    .exitOverride();
  // `offsetctl workflow ...` needs only its own group; anything else (help, typos, the other
  // commands) registers every group so help and "unknown command" see them all.
  const groups = args[0] === 'workflow'
    ? [await import('./commands/workflow.js')]
    : await Promise.all([import('./commands/workflow.js'), import('./commands/sandbox.js'), import('./commands/cluster.js'), import('./commands/ops.js'), import('./commands/ui.js')]);
  for (const group of groups) group.register(program);
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version exit 0; argument mistakes are refusals (2).
      process.exitCode = err.exitCode === 0 ? 0 : 2;
      return;
    }
    // Each command gets advice about its own flags only: `workflow` commands have --source and
    // --server but no connection flags; the others the reverse.
    if (!(err instanceof ReportedFailure) || err.message !== '') process.stderr.write(`${formatError(err, { flagAdvice: args[0] === 'workflow' ? 'workflow' : 'connection' })}\n`);
    process.exitCode = exitStatusFor(err);
  }
}

function readVersion(): string {
  const pkg = fileURLToPath(new URL('../../../package.json', import.meta.url));
  return (JSON.parse(readFileSync(pkg, 'utf8')) as { version: string }).version;
}
