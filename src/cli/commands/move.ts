// `offsetctl move`, `copy`, `export` and `import`: connectors with their offsets across Connect
// clusters (src/ops/move). The source is the usual connection (--url, --context); the target is
// `--to <context|url>`, resolved the same way, so each cluster keeps its own credentials. Plan,
// show, ask (or --yes), apply with Ctrl-C as a cancel, print the outcome. Exit statuses: 0 done,
// 1 the run failed (the message says where the connector is and in which state), 2 refused
// before anything changed.
import { Option, type Command } from 'commander';
import { addConnectionOptions, type ConnectionOptions } from '../connection.js';
import { addKafkaOptions, type KafkaFlags } from '../kafka-settings.js';
import { withSourceDbFlags, type SourceDbOptions } from '../source-db.js';
import * as load from '../load.js';

export interface MoveCliOptions extends ConnectionOptions, KafkaFlags, SourceDbOptions {
  slotWait?: string;
  to?: string;
  as?: string;
  keepSource?: boolean;
  translateOffsets?: string;
  fromBootstrap?: string;
  translateTimeout?: string;
  allowPluginVersionChange?: boolean;
  targetState?: 'auto' | 'RUNNING' | 'PAUSED' | 'STOPPED';
  set?: string[];
  yes?: boolean;
  dryRun?: boolean;
  selector?: string;
  all?: boolean;
  concurrency?: string;
  skipInvalid?: boolean;
}

const EXIT_HELP = '\nExit status: 0 done, 1 the run failed (the message says where the connector is and in which state), 2 refused before anything changed.';

export type ImportCliOptions = ConnectionOptions & KafkaFlags & {
  to: string; only?: string; replace?: boolean; secretsFile?: string; allowPluginVersionChange?: boolean; allowDuplicateSource?: boolean;
  concurrency?: string; yes?: boolean; dryRun?: boolean;
};

export function register(program: Command): void {
  addKafkaOptions(withSourceDbFlags(moveFlags(addConnectionOptions(program
    .command('move')
    .argument('[connectors...]', 'connector name(s) on the current cluster; several, --selector or --all make a batch')
    .requiredOption('--to <context|url>', 'the Connect cluster to move to: a context name, or its worker URL(s)')
    .option('--keep-source', 'leave the original STOPPED on the old cluster instead of deleting it')
    .option('--translate-offsets <alias>', 'a sink moved to a Connect cluster on another Kafka cluster: translate its offsets with MirrorMaker 2\'s checkpoints (<alias>.checkpoints.internal on the target\'s Kafka cluster: --bootstrap or the target context\'s)')
    .option('--from-bootstrap <host:port,...>', 'with --translate-offsets: the Kafka cluster the sink reads now (default: the current context\'s bootstrap), to check MirrorMaker 2\'s translation record by record (its security settings are the current context\'s)')
    .option('--translate-timeout <seconds>', 'how long to wait for MirrorMaker 2 to checkpoint the stopped sink\'s offsets (default 120)')
    .option('--selector <regex>', 'batch: every connector whose name matches this regular expression')
    .option('--all', 'batch: every connector of the cluster')
    .option('--concurrency <n>', 'batch: connectors moved at once (default 4)')
    .option('--skip-invalid', 'batch: leave out (and list) connectors refused in pre-flight instead of refusing the batch')
    .option('--slot-wait <seconds>', 'a Debezium PostgreSQL source: how long to wait for the old task to let go of its replication slot before the new ' +
      'one starts (default 60)')
    .description('move connectors to another Connect cluster with their offsets: pre-flight both, stop, snapshot, create STOPPED there, write and verify offsets, delete here, start there'))))).addHelpText('after', EXIT_HELP)
    .action(async (names: string[], opts: MoveCliOptions) => {
      if (names.length !== 1 || opts.selector !== undefined || opts.all || opts.concurrency !== undefined || opts.skipInvalid) return (await load.moveActions()).moveBatch(names, opts);
      await (await load.moveActions()).runMove('move', names[0]!, opts);
    });

  moveFlags(addConnectionOptions(program
    .command('copy')
    .argument('<connector>', 'connector name on the current cluster')
    .requiredOption('--as <new-name>', 'the copy\'s name')
    .option('--to <context|url>', 'the Connect cluster to copy to (default: the same cluster)')
    .option('--set <key=value>', 'a setting of the copy\'s configuration (repeatable), e.g. a Debezium source\'s own --set slot.name=… --set publication.name=… --set topic.prefix=…', (v: string, all: string[] = []) => [...all, v])
    .description('copy a connector under a new name (blue/green), with its offsets: a sink\'s copy gets its own consumer group with the offsets written explicitly, a source\'s copy the offsets under the new name; the original is put back as it was'))).addHelpText('after', EXIT_HELP)
    .action(async (connector: string, opts: MoveCliOptions) => (await load.moveActions()).runMove('copy', connector, opts));

  addConnectionOptions(program
    .command('export')
    .argument('[connectors...]', 'connector name(s)')
    .option('--selector <regex>', 'every connector whose name matches this regular expression')
    .option('--all', 'every connector of the cluster')
    .option('--consistent', 'stop each running connector briefly (snapshot first, then back to its state) so configuration and offsets are read at one moment')
    .option('--include-secrets', 'keep literal secrets (PASSWORD-typed values) in the file; by default they are left out and the import asks for them')
    .option('--yes', 'with --consistent: do not ask for confirmation (scripts)')
    .description('write a backup of connectors (configuration, state, type, plugin and version, offsets, Kafka cluster id, read time) as YAML on stdout (JSON with -o json)'))
    .action(async (names: string[], opts: ConnectionOptions & { selector?: string; all?: boolean; consistent?: boolean; includeSecrets?: boolean; yes?: boolean }) => (await load.moveBackup()).runExport(names, opts));

  addKafkaOptions(addConnectionOptions(program
    .command('import')
    .argument('<backup>', 'a file written by `offsetctl export` (YAML or JSON), or - for stdin')
    .requiredOption('--to <context|url>', 'the Connect cluster to create the connectors on')
    .option('--only <names>', 'only these connectors of the backup, comma-separated')
    .option('--replace', 'replace connectors of the same name (their offsets are snapshotted first)')
    .option('--secrets-file <file>', 'the secrets the backup left out, as YAML or JSON {"<connector>": {"<key>": "<value>"}}')
    .option('--allow-plugin-version-change', 'accept another version of a connector\'s plugin on the target')
    .option('--allow-duplicate-source', 'import a source onto the Kafka cluster it was exported from although its original may run there (it is gone or stopped)')
    .option('--concurrency <n>', 'connectors imported at once (default 4)')
    .option('--yes', 'do not ask for confirmation (scripts)')
    .option('--dry-run', 'run the pre-flight checks, change nothing')
    .description('create the connectors of a backup on a cluster: pre-flight all first, each created STOPPED, its offsets written and verified, then put in its exported state')))
    .addHelpText('after', EXIT_HELP)
    .action(async (file: string, opts: ImportCliOptions) => (await load.moveBackup()).runImport(file, opts));
}

function moveFlags(cmd: Command): Command {
  return cmd
    .option('--allow-plugin-version-change', 'accept another version of the connector\'s plugin on the target')
    .addOption(new Option('--target-state <state>', 'the state the new connector is put in (default auto: the original\'s)').choices(['auto', 'RUNNING', 'PAUSED', 'STOPPED']))
    .option('--yes', 'do not ask for confirmation (scripts)')
    .option('--dry-run', 'run the pre-flight checks on both clusters, change nothing');
}
