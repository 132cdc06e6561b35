// `offsetctl replay <connector> --table <schema.table> [--where <cond>]`: a Debezium source's rows
// read again through its incremental snapshot signal (src/ops/replay). The face: flags, the plan
// shown, --dry-run, the confirmation (or --yes), the outcome; refusals are audited like a change's.
import type { Command } from 'commander';
import { addConnectionOptions, type ConnectionOptions, } from '../connection.js';
import { addKafkaOptions, type KafkaFlags, } from '../kafka-settings.js';
import { withSourceDbFlags, type SourceDbOptions } from '../source-db.js';
import * as load from '../load.js';

export interface ReplayFlags extends ConnectionOptions, KafkaFlags, SourceDbOptions {
  table?: string;
  where?: string;
  toTime?: string;
  timeColumn?: string;
  yes?: boolean;
  dryRun?: boolean;
}

const HELP = `
A Debezium source is "rewound" by reading rows again, not by moving its offset (a PostgreSQL slot
forwards past a rewound LSN: docs/connectors.md). replay sends Debezium's incremental snapshot
signal (execute-snapshot, type incremental, --where as its additional condition) to the
connector's Kafka signal topic (signal.enabled.channels with kafka, signal.kafka.topic), keyed by
its topic.prefix, and waits for the re-read rows (op=r) on <topic.prefix>.<schema>.<table>.
No offset changes, so no snapshot is taken. The run is journaled (offsetctl runs) and audited.

Exit status: 0 the rows arrived, 1 the run failed (the message says where), 2 refused (not a
Debezium source, no Kafka signal channel, a table it does not capture, bad flags; nothing sent).

Examples:
  offsetctl replay pg-orders --table public.orders --where "id > 25" --dry-run
  offsetctl replay pg-orders --table public.orders --where "id > 25" --yes
  offsetctl replay pg-orders --table public.orders --to-time 2026-12-04T06:00:00Z --time-column updated_at`;

export function register(program: Command): void {
  const cmd = withSourceDbFlags(addKafkaOptions(addConnectionOptions(program.command('replay').argument('<connector>', 'a Debezium source connector')
    .description('read rows of a Debezium source\'s table again (an incremental snapshot signal through its Kafka signal topic); no offset changes')
    .option('--table <schema.table>', 'the captured table to read again (required)')
    .option('--where <condition>', 'only rows matching this SQL condition (Debezium\'s additional-conditions filter), e.g. "id > 25"')
    .option('--to-time <time>', 'with --time-column: rows whose column is at or after this time (ISO-8601, or -2h, -30m, -1d)')
    .option('--time-column <column>', 'the table\'s timestamp column --to-time compares')
    .option('--dry-run', 'show what would be read again and where it goes; send nothing')
    .option('--yes', 'do not ask for confirmation (scripts)'))));
  cmd.addHelpText('after', HELP);
  cmd.action(async (connector: string, _opts: ReplayFlags, command: Command) => (await load.replayActions()).replayCommand(connector, command.optsWithGlobals() as ReplayFlags));
}
