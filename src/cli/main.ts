// Entry point. Only this module catches errors, prints them and sets the exit status.
// Command groups register their options eagerly and load their implementations through the
// lazy-loading seam (verbs.ts: a verb's module; load.ts: one door per library), so
// `offsetctl --version` loads almost nothing.
import { setFlagsFromString } from 'node:v8';
import type { Command as CommandType, Help as HelpType, Option as OptionType } from 'commander';
import { prepareArgs } from './argv.js';
import { readVersion } from './package-version.js';
import { exitStatusFor, formatError, ReportedFailure } from './exit-status.js';
import { disableColor, useColor } from './render/color.js';
import { startupV8Flags } from './v8-flags.js';
import { currentIO, isProcessIO, withIO, type CliIO } from './io.js';
import { allVerbModules, OWN_GROUP } from './verbs.js';
import * as load from './load.js';
import { withOwnSecrets } from '../http/redact.js';

/**
 * Runs `offsetctl <argv.slice(2)>`. The launcher gives no IO: the command uses the process's own
 * and its status goes to process.exitCode, as always. A test gives one (test/support/in-process.ts):
 * the command runs with it (currentIO(), see io.ts) and the status is returned, the process's
 * exit code untouched.
 */
export async function main(argv: string[], io?: CliIO): Promise<number> {
  const own = io ?? currentIO();
  const run = () => runCommand(argv, own);
  if (io === undefined) {
    await run();
    return own.exitCode ?? 0;
  }
  // A run of its own: the secrets it registers are masked in its output only, and the document
  // cache it sets up is put away after it (module state another in-process run must not see).
  // (The caches load here, not at the top: the launcher's start-up never pays for them.)
  const [{ setActiveDocumentCache }, { useDocumentCache }] = await Promise.all([load.documentCache(), load.opsDocumentCache()]);
  try {
    await withIO(io, () => withOwnSecrets(run));
  } finally {
    setActiveDocumentCache(undefined);
    useDocumentCache(undefined);
  }
  return io.exitCode ?? 0;
}

async function runCommand(argv: string[], io: CliIO): Promise<void> {
  if (isProcessIO(io)) quietOnClosedPipe();
  const prepared = prepareArgs(argv.slice(2));
  const args = prepared.args;
  if (prepared.noColor) disableColor();
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
    io.stdout.write(`${readVersion()}\n`);
    return;
  }
  for (const flag of startupV8Flags(args)) setFlagsFromString(flag);
  // Only the commands that load Arazzo/OpenAPI documents pay for setting up the cache.
  if (DOCUMENT_COMMANDS.has(args[0] ?? '') && io.env.OFFSETCTL_NO_DOCUMENT_CACHE !== '1') {
    const [{ documentCache, setActiveDocumentCache, stateDirFromArgs }, { resolveStateDir }, { useDocumentCache }] = await Promise.all([
      load.documentCache(), load.connection(), load.opsDocumentCache(),
    ]);
    const cache = documentCache(resolveStateDir(stateDirFromArgs(args)));
    setActiveDocumentCache(cache);
    useDocumentCache(cache);
  }
  const { Command, CommanderError, Help } = await load.commander();
  const program = new Command('offsetctl')
    .description('Safe Kafka Connect offset operations, run as Arazzo 1.0.1 workflows')
    .version(readVersion())
    .exitOverride()
    .addHelpText('after', GLOBAL_HELP);
  // Commander writes help and usage errors to the process's streams unless told otherwise; a
  // command run with streams of its own (a test's) gets them there (set before any subcommand, which inherits it).
  if (!isProcessIO(io)) {
    program.configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      getOutHelpWidth: () => (io.stdout.isTTY && io.stdout.columns) || 80,
      getErrHelpWidth: () => (io.stderr.isTTY && io.stderr.columns) || 80,
      getOutHasColors: () => useColor(io.stdout, io.env),
      getErrHasColors: () => useColor(io.stderr, io.env),
    });
  }
  // A known verb needs only its own group (`connectors` never loads the workflow, sandbox or
  // console registrations); anything else (help, typos, a flag first) registers every group so
  // help and "unknown command" see them all.
  const own = OWN_GROUP[args[0] ?? ''];
  const groups = own !== undefined && !args.includes('--help') && !args.includes('-h') ? [await own()] : await allVerbModules();
  for (const group of groups) group.register(program);
  if (groups.length > 1) groupVerbsByTask(program, Help);
  configureUsageErrors(program);
  try {
    await program.parseAsync(args, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version exit 0; argument mistakes are refusals (2).
      io.exitCode = err.exitCode === 0 ? 0 : 2;
      if (err.exitCode !== 0 && wantsJson(args)) {
        io.stdout.write(`${JSON.stringify({ error: { code: 'E_USAGE', message: err.message.replace(/^error: /, ''), exitStatus: 2 } }, null, 2)}\n`);
      }
      return;
    }
    io.exitCode = exitStatusFor(err);
    // A reported failure's account (the outcome JSON, the workflow report) is already on stdout;
    // only its message, when there is one, goes to stderr.
    if (err instanceof ReportedFailure) {
      if (err.message !== '') io.stderr.write(`${formatError(err)}\n`);
      return;
    }
    // Each command gets advice about its own flags only: `workflow` commands have --source and
    // --server but no connection flags; the others the reverse.
    const message = formatError(err, { flagAdvice: args[0] === 'workflow' ? 'workflow' : 'connection' });
    // With --output json a refusal or failure is also one JSON object on stdout, for scripts.
    // (`workflow run` and `workflow validate` print their own result document.)
    const printsOwnJson = args[0] === 'workflow' && (args[1] === 'run' || args[1] === 'validate');
    if (wantsJson(args) && !printsOwnJson) {
      const e = err as { code?: unknown };
      io.stdout.write(`${JSON.stringify({ error: { code: typeof e.code === 'string' ? e.code : 'E_INTERNAL', message: message.replace(/^error(?: \[[A-Z_]+\])?: /, ''), exitStatus: io.exitCode } }, null, 2)}\n`);
    }
    io.stderr.write(`${message}\n`);
  }
}

const DOCUMENT_COMMANDS = new Set(['workflow', 'rewind', 'reset', 'rollback', 'runs', 'ui', 'apply', 'changes', 'move', 'copy', 'export', 'import', 'replay']);

const GLOBAL_HELP = `
Global flags (before or after the command): --url, --context, -o/--output, --state-dir,
--user, --password-env/--password-file, --token-env/--token-file, --cert/--key/--ca,
--insecure, --timeout, --no-color (also NO_COLOR=1).

Each command's flags and examples: offsetctl <command> --help.

Examples:
  offsetctl sandbox demo
  offsetctl --context prod rewind my-sink --to-time -2h --dry-run
  offsetctl runs resume <run-id>`;

/**
 * `offsetctl --help` lists the verbs by task, in this order, like kubectl and gh (a verb added
 * without a line here is listed last, under "Commands:").
 */
const HELP_GROUPS: ReadonlyArray<readonly [heading: string, verbs: readonly string[]]> = [
  ['Inspect:', ['connectors', 'offsets']],
  ['Change offsets:', ['rewind', 'reset', 'rollback', 'apply', 'changes']],
  ['Read rows again (no offset changes):', ['replay']],
  ['Across clusters:', ['move', 'copy', 'export', 'import']],
  ['History:', ['runs', 'snapshots', 'audit']],
  ['Team store:', ['store', 'policy']],
  ['Connector lifecycle:', ['stop', 'pause', 'resume', 'restart']],
  ['Workflows:', ['workflow']],
  ['Local cluster:', ['sandbox']],
  ['Console and settings:', ['ui', 'config', 'completion', 'version', 'help']],
];

/** Puts every top-level verb in its group of HELP_GROUPS and lists the groups in that order. */
function groupVerbsByTask(program: CommandType, Help: typeof HelpType): void {
  const headings = HELP_GROUPS.map(([heading]) => heading);
  const groupOf = (verb: string): string | undefined => HELP_GROUPS.find(([, verbs]) => verbs.includes(verb))?.[0];
  for (const cmd of program.commands) {
    const heading = groupOf(cmd.name());
    if (heading) cmd.helpGroup(heading);
  }
  // The implicit `help` command is made when help is printed; made now, it joins its group.
  const helpHeading = groupOf('help');
  if (helpHeading) program.commandsGroup(helpHeading).helpCommand('help [command]', 'display help for command').commandsGroup('Commands:');
  const rank = (heading: string): number => (headings.includes(heading) ? headings.indexOf(heading) : headings.length);
  // Within a group, the verbs in the order named above (options keep theirs: they are in no group here).
  const verbRank = (heading: string, item: CommandType | OptionType): number => (HELP_GROUPS.find(([h]) => h === heading)?.[1] ?? []).indexOf(item.name());
  program.configureHelp({
    groupItems<T extends CommandType | OptionType>(unsorted: T[], visible: T[], getGroup: (item: T) => string): Map<string, T[]> {
      const groups = new Help().groupItems(unsorted, visible, getGroup);
      return new Map([...groups].sort(([a], [b]) => rank(a) - rank(b)).map(([h, items]) => [h, items.sort((x, y) => verbRank(h, x) - verbRank(h, y))]));
    },
  });
}

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
    const examples = EXAMPLES[path.join(' ')];
    if (examples) cmd.addHelpText('after', `\nExamples:\n${examples.map((e) => `  offsetctl ${e}`).join('\n')}`);
    for (const sub of cmd.commands) visit(sub, [...path, sub.name()]);
  };
  visit(program, []);
  // Patched once per process: a test runs many commands in its own process (main(argv, io)).
  const proto = program.constructor.prototype as { _checkForMissingMandatoryOptions(this: CommandType): void; unknownFirst?: true };
  if (proto.unknownFirst) return;
  proto.unknownFirst = true;
  const original = proto._checkForMissingMandatoryOptions;
  proto._checkForMissingMandatoryOptions = function checkUnknownFirst(this: CommandType & { _allowUnknownOption?: boolean }) {
    // Commander keeps the leaf's unknown options here while it parses (commander 14).
    const unknown = (this as { args?: string[] }).args?.find((a) => a.startsWith('-') && a !== '-' && a !== '--');
    if (unknown && !this._allowUnknownOption && this.commands.length === 0) {
      (this as unknown as { unknownOption(flag: string): void }).unknownOption(unknown);
    }
    original.call(this);
  };
}

/** Two or three real command lines at the end of each --help (lifecycle, completion and version carry their own). */
const EXAMPLES: Record<string, string[]> = {
  connectors: ['connectors --context prod', 'connectors --url http://localhost:8083 -o json'],
  offsets: ['offsets get my-sink', 'offsets get my-source -o json > offsets.json'],
  'offsets get': ['offsets get my-sink', 'offsets get my-source -o json > offsets.json', '--context prod offsets get my-sink'],
  rewind: ['rewind my-sink --to-time -2h --plan-out rewind.plan.json', 'rewind my-source --offsets offsets.json --dry-run', 'offsets get my-source -o json | jq ... | offsetctl rewind my-source --offsets - --yes'],
  reset: ['reset my-sink --dry-run', 'reset my-sink --yes -o json', 'reset --selector \'^orders-\' --plan-out reset.plan.json'],
  changes: ['changes list --status pending', 'changes approve chg-20261201-090000-ab12', 'changes apply chg-20261201-090000-ab12 --yes'],
  apply: ['apply rewind.plan.json', 'apply rewind.plan.json --yes --max-age 2h', 'apply rewind.plan.json --dry-run -o json'],
  rollback: ['rollback my-sink', 'rollback my-sink --snapshot snap-20260101-abcd --dry-run'],
  snapshots: ['snapshots', 'snapshots my-sink -o json'],
  'snapshots show': ['snapshots show snap-20260101-abcd', 'snapshots show snap-20260101-abcd -o json'],
  runs: ['runs', 'runs --connector my-sink -o json'],
  'runs show': ['runs show run-20260101-abcd', 'runs show run-20260101-abcd -o json'],
  'runs resume': ['runs resume run-20260101-abcd', 'runs resume run-20260101-abcd --context prod'],
  config: ['config set-context prod --url https://connect.example:8443 --user ops --password-env CONNECT_PASSWORD', 'config use-context prod', 'config get-contexts'],
  'config set-context': ['config set-context prod --url https://connect.example:8443 --user ops --password-env CONNECT_PASSWORD', 'config set-context local --url http://localhost:8083'],
  'config use-context': ['config use-context prod'],
  'config get-contexts': ['config get-contexts', 'config get-contexts -o json'],
  'config current-context': ['config current-context'],
  'config delete-context': ['config delete-context old-prod'],
  sandbox: ['sandbox up', 'sandbox status -o json', 'sandbox demo'],
  'sandbox up': ['sandbox up', 'sandbox up --workers 1 --dir /tmp/my-sandbox'],
  'sandbox status': ['sandbox status', 'sandbox status -o json'],
  'sandbox down': ['sandbox down', 'sandbox down --dir /tmp/my-sandbox'],
  'sandbox logs': ['sandbox logs worker-1 -n 100', 'sandbox logs -f'],
  'sandbox demo': ['sandbox demo'],
  workflow: ['workflow validate examples/seeds/reset-connector-offsets.arazzo.yaml --source kafkaConnectApi=openapi/kafka-connect.yaml', 'workflow run my.arazzo.yaml --input name=value -o junit > report.xml'],
  'workflow run': ['workflow run examples/seeds/reset-connector-offsets.arazzo.yaml --source kafkaConnectApi=openapi/kafka-connect.yaml --server http://localhost:8083 --input connectorName=my-sink', 'workflow run my.arazzo.yaml --inputs inputs.json -o junit > report.xml'],
  'workflow validate': ['workflow validate examples/seeds/reset-connector-offsets.arazzo.yaml --source kafkaConnectApi=openapi/kafka-connect.yaml', 'workflow validate my.arazzo.yaml -o json'],
  'workflow lint': ['workflow lint my.arazzo.yaml', 'workflow lint my.arazzo.yaml --format json'],
  'workflow upgrade': ['workflow upgrade my.arazzo.yaml --dry-run', 'workflow upgrade my.arazzo.yaml --output-file my-1.1.arazzo.yaml'],
  ui: ['ui', 'ui --context prod --listen 0.0.0.0:7443 --tls-cert cert.pem --tls-key key.pem'],
  'workflow plan': ['workflow plan examples/seeds/reset-connector-offsets.arazzo.yaml --source kafkaConnectApi=openapi/kafka-connect.yaml --input connectorName=my-sink'],
};

function wantsJson(args: readonly string[]): boolean {
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') return false;
    if ((a === '--output' || a === '-o') && args[i + 1] === 'json') return true;
    if (a === '--output=json' || a === '-ojson') return true;
  }
  return false;
}
