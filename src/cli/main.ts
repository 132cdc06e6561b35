// Entry point. Only this module catches errors, prints them and sets the exit status.
// Command groups register their options eagerly but import their implementations lazily,
// so `offsetctl --version` loads almost nothing.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Command as CommandType } from 'commander';
import { prepareArgs } from './argv.js';
import { exitStatusFor, formatError } from './exit-status.js';
import { disableColor } from './render/color.js';

export async function main(argv: string[]): Promise<void> {
  quietOnClosedPipe();
  const prepared = prepareArgs(argv.slice(2));
  const args = prepared.args;
  if (prepared.noColor) disableColor();
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
    process.stdout.write(`${readVersion()}\n`);
    return;
  }
  const { Command, CommanderError } = await import('commander');
  const program = new Command('offsetctl')
    .description('Safe Kafka Connect offset operations, run as Arazzo 1.0.1 workflows')
    .version(readVersion())
    .exitOverride()
    .addHelpText('after', GLOBAL_HELP);
  // `offsetctl workflow ...` needs only its own group; anything else (help, typos, the other
  // commands) registers every group so help and "unknown command" see them all.
  const groups = args[0] === 'workflow'
    ? [await import('./commands/workflow.js')]
    : await Promise.all([
      import('./commands/workflow.js'), import('./commands/sandbox.js'), import('./commands/cluster.js'), import('./commands/ops.js'),
      import('./commands/lifecycle.js'), import('./commands/version.js'), import('./commands/completion.js'),
    ]);
  for (const group of groups) group.register(program);
  configureUsageErrors(program);
  try {
    await program.parseAsync(args, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version exit 0; argument mistakes are refusals (2).
      process.exitCode = err.exitCode === 0 ? 0 : 2;
      return;
    }
    const message = formatError(err);
    process.exitCode = exitStatusFor(err);
    // With --output json a refusal or failure is also one JSON object on stdout, for scripts.
    // (`workflow run` and `workflow validate` print their own result document.)
    const printsOwnJson = args[0] === 'workflow' && (args[1] === 'run' || args[1] === 'validate');
    if (wantsJson(args) && !printsOwnJson) {
      const e = err as { code?: unknown };
      process.stdout.write(`${JSON.stringify({ error: { code: typeof e.code === 'string' ? e.code : 'E_INTERNAL', message: message.replace(/^error(?: \[[A-Z_]+\])?: /, ''), exitStatus: process.exitCode } }, null, 2)}\n`);
    }
    process.stderr.write(`${message}\n`);
  }
}

const GLOBAL_HELP = `
Global flags (before or after the command): --url, --context, -o/--output, --state-dir,
--user, --password-env/--password-file, --token-env/--token-file, --cert/--key/--ca,
--insecure, --timeout, --no-color (also NO_COLOR=1).

Examples:
  offsetctl sandbox demo
  offsetctl --context prod -o json offsets get my-sink
  offsetctl rewind my-sink --offsets offsets.json --dry-run`;

/**
 * `offsetctl runs | head -1`: once the reader is gone there is nobody to tell, so end quietly
 * instead of dying on an unhandled EPIPE. (A change already sent to Connect is in the journal
 * and `runs resume` finishes it.)
 */
function quietOnClosedPipe(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
      throw err;
    });
  }
}

/**
 * A usage mistake prints one line and where to look, not the whole help. Commander lists
 * missing mandatory options before unknown ones; an unknown option is the real mistake
 * (`rewind x --to-datetime T`), so it is reported first.
 */
function configureUsageErrors(program: CommandType): void {
  const visit = (cmd: CommandType, path: string[]): void => {
    const name = ['offsetctl', ...path].join(' ');
    cmd.showHelpAfterError(`hint: see \`${name} --help\``);
    for (const sub of cmd.commands) visit(sub, [...path, sub.name()]);
  };
  visit(program, []);
  const original = program.constructor.prototype._checkForMissingMandatoryOptions as (this: CommandType) => void;
  program.constructor.prototype._checkForMissingMandatoryOptions = function checkUnknownFirst(this: CommandType & { _allowUnknownOption?: boolean }) {
    // Commander keeps the leaf's unknown options here while it parses (commander 14).
    const unknown = (this as { args?: string[] }).args?.find((a) => a.startsWith('-') && a !== '-' && a !== '--');
    if (unknown && !this._allowUnknownOption && this.commands.length === 0) {
      (this as unknown as { unknownOption(flag: string): void }).unknownOption(unknown);
    }
    original.call(this);
  };
}

function wantsJson(args: readonly string[]): boolean {
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') return false;
    if ((a === '--output' || a === '-o') && args[i + 1] === 'json') return true;
    if (a === '--output=json' || a === '-ojson') return true;
  }
  return false;
}

export function readVersion(): string {
  const pkg = fileURLToPath(new URL('../../../package.json', import.meta.url));
  return (JSON.parse(readFileSync(pkg, 'utf8')) as { version: string }).version;
}
