// `offsetctl sandbox up|status|down|logs|demo`: a local Kafka broker and Connect workers.
import { Option, type Command } from 'commander';
import * as load from '../load.js';

export interface DirOption {
  dir?: string;
}

export type UpOptions = DirOption & { workers: number; clusters?: number; lanes?: number; otherKafka?: boolean; brokerPort?: number; connectPort?: number;
  output: string; kafkaVersion?: string; postgres?: boolean; postgresPort?: number; plugin: string[]; cdcPostgres?: boolean };

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function positiveInt(name: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) throw Object.assign(new Error(`${name} must be a positive whole number, got "${value}"`), { code: 'E_USAGE' });
    return n;
  };
}

/** `--output yaml` is refused by name, not silently shown as text. */
function outputOption(): Option {
  return new Option('-o, --output <format>', 'output format').choices(['text', 'json']).default('text');
}

export function register(program: Command): void {
  const sandbox = program
    .command('sandbox')
    .description('a local Kafka broker and Kafka Connect workers (jars from Maven Central) for tests and demos');

  sandbox
    .command('up')
    .description('start one broker and N distributed Connect workers on 127.0.0.1 (reuses a running sandbox, adding the clusters asked for)')
    .option('--workers <n>', 'number of Connect workers (of each Connect cluster on the broker)', positiveInt('--workers'), 2)
    .option('--clusters <n>', 'Connect clusters on the broker: 1, or 2 for a second cluster (own group.id and internal topics) to move connectors to', positiveInt('--clusters'))
    .option('--lanes <n>', 'test lanes: 1, or up to 4 for a Connect cluster per lane after the first (lane-2 …; own group.id and internal topics)',
      positiveInt('--lanes'))
    .option('--other-kafka', 'also a second, single-node Kafka cluster with a one-worker Connect cluster of its own (MirrorMaker 2 tests)')
    .option('--dir <dir>', 'sandbox folder (default $OFFSETCTL_SANDBOX_DIR or ~/.cache/offsetctl/sandbox)')
    .option('--broker-port <port>', 'fixed broker port instead of a free one', positiveInt('--broker-port'))
    .option('--connect-port <port>', 'fixed REST port of the first worker (the next workers use the following ports)', positiveInt('--connect-port'))
    .option('--kafka-version <version>', 'Kafka release to run, 3.6.0 or newer (default: the newest, 4.4.0); each version\'s jars are downloaded once')
    .option('--postgres', 'also start a team store: PostgreSQL with two operator logins, alice and bob (docs/sandbox.md)')
    .option('--postgres-port <port>', 'fixed port for the team store instead of a free one', positiveInt('--postgres-port'))
    .option('--plugin <name>', 'load a real Connect plugin on every worker (repeatable): debezium-postgres, debezium-jdbc-sink, iceberg-sink '
      + '(with an Iceberg REST catalog), or Maven coordinates group:artifact:version[:type[:classifier]]; fetched once into <dir>/plugins', collect, [])
    .option('--cdc-postgres', 'also a CDC source: PostgreSQL with wal_level=logical, superuser login without password on loopback (docs/sandbox.md)')
    .addOption(outputOption())
    .action(async (opts: UpOptions, command: Command) => (await load.sandboxActions()).up(opts, command));

  sandbox
    .command('status')
    .description('is the sandbox running, and where')
    .option('--dir <dir>', 'sandbox folder')
    .addOption(outputOption())
    .action(async (opts: DirOption & { output: string }) => (await load.sandboxActions()).status(opts));

  sandbox
    .command('down')
    .description('stop the processes the sandbox started and wait until their ports are closed')
    .option('--dir <dir>', 'sandbox folder')
    .option('--cluster <name>', 'stop only an added cluster: second, lane-2 …, or other (with its Kafka broker)')
    .action(async (opts: DirOption & { cluster?: string }) => (await load.sandboxActions()).down(opts));

  sandbox
    .command('logs')
    .description('show the end of the broker and worker logs')
    .argument('[process]', 'broker, worker-1, worker-2, ..., second-worker-1, lane-2-worker-1, other-broker, other-worker-1 (default: all)')
    .option('--dir <dir>', 'sandbox folder')
    .option('-n, --lines <n>', 'lines per log', positiveInt('--lines'), 50)
    .option('-f, --follow', 'keep printing new lines until interrupted')
    .action(async (role: string | undefined, opts: DirOption & { lines: number; follow?: boolean }) => (await load.sandboxActions()).logs(role, opts));

  sandbox
    .command('demo')
    .description('start the sandbox, pipe a file through FileStreamSource -> topic -> FileStreamSink, rewind the source and show the replay')
    .option('--dir <dir>', 'sandbox folder')
    .option('--cdc', 'instead: a Debezium table replayed (`offsetctl replay`), on a sandbox up with --plugin debezium-postgres --cdc-postgres')
    .action(async (opts: DirOption & { cdc?: boolean }) => (await load.sandboxActions()).demo(opts));
}
