// kubectl-style global flags: `offsetctl --context prod -o json offsets get c` means the same as
// `offsetctl offsets get c --context prod -o json`. Commander reads a command's options only after
// its name, so global flags written before the verb are moved to the end of the command line
// (before a literal `--`), where the command that runs finds them. --no-color is taken out
// wherever it is, as every command honours it.

/** Global flags that take a value. */
const VALUE_FLAGS = new Set(['--url', '--context', '--state-dir', '--output', '-o', '--user', '--password-env', '--password-file', '--token-env', '--token-file', '--cert', '--key', '--ca', '--timeout', '--dir']);
/** Global flags without a value. */
const BOOLEAN_FLAGS = new Set(['--insecure']);

export interface PreparedArgs {
  /** The arguments after `node offsetctl`, global flags moved behind the verb. */
  args: string[];
  noColor: boolean;
}

export function prepareArgs(args: readonly string[]): PreparedArgs {
  const hoisted: string[] = [];
  let i = 0;
  // Leading global flags, up to the verb.
  while (i < args.length) {
    const arg = args[i] as string;
    const name = arg.startsWith('--') && arg.includes('=') ? arg.slice(0, arg.indexOf('=')) : arg;
    if (VALUE_FLAGS.has(name)) {
      if (name !== arg) {
        hoisted.push(arg);
        i += 1;
      } else {
        hoisted.push(arg, ...(i + 1 < args.length ? [args[i + 1] as string] : []));
        i += 2;
      }
    } else if (BOOLEAN_FLAGS.has(arg) || arg === '--no-color') {
      hoisted.push(arg);
      i += 1;
    } else if (/^-o\S/.test(arg)) {
      hoisted.push(arg); // -ojson
      i += 1;
    } else break;
  }
  const rest = args.slice(i);
  const literal = rest.indexOf('--');
  const before = literal < 0 ? rest : rest.slice(0, literal);
  const after = literal < 0 ? [] : rest.slice(literal);
  const moved = [...before, ...hoisted];
  const noColor = moved.includes('--no-color');
  return { args: [...moved.filter((a) => a !== '--no-color'), ...after], noColor };
}
