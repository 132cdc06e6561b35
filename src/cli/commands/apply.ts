// `offsetctl apply <plan.json>`: a plan saved by `--plan-out`, applied exactly as saved. The file's
// digest is checked first, then the plan against the cluster now (src/ops/changes/check.ts: age,
// cluster, the connector's identity, a plan already applied); it is shown again (diff against the
// offsets now, what moved since planning) and asked about like any change. Offsets that moved in a
// way that changes what the plan does need their own yes: asked at a terminal, or
// --accept-moved-offsets; --yes alone never passes them. Exit status as for any change.
import { withSourceDbFlags, type SourceDbOptions } from '../source-db.js';
import type { Command } from 'commander';
import { addConnectionOptions } from '../connection.js';
import { addKafkaOptions, type KafkaFlags } from '../kafka-settings.js';
import { withLimitFlags, type ChangeOptions, type LimitOptions } from './change-flags.js';
import * as load from '../load.js';

export interface ApplyOptions extends ChangeOptions, LimitOptions, KafkaFlags, SourceDbOptions {
  maxAge?: string;
  acceptMovedOffsets?: boolean;
  concurrency?: string;
}

const HELP = `
The plan is applied only as saved: its digest must match its content (sha256; tamper-evidence
against edits, not a signature), the connector must be the one planned (Kafka cluster, type,
connector.class, topics), the plan younger than --max-age, and not applied before. Offsets that
moved since planning are shown; a move that changes what the plan does (a rewind that would now
skip records, an offset that went back, partitions that appeared or went) needs
--accept-moved-offsets or a yes at the terminal, never --yes alone. The snapshot is taken now.
Exit status: 0 done, 1 the run failed (the message says which state the connector is in), 2 refused before anything changed.`;

export function register(program: Command): void {
  withSourceDbFlags(addKafkaOptions(withLimitFlags(addConnectionOptions(
    program
      .command('apply')
      .argument('<plan>', 'a plan file written by --plan-out (rewind, reset, rollback; one connector or a batch)')
      .option('--max-age <age>', 'refuse a plan older than this: 90m, 12h, 2d, 1w (default 24h)')
      .option('--accept-moved-offsets', 'apply even though the starting offsets moved in a way that changes what the plan does (shown first)')
      .option('--yes', 'do not ask for confirmation (scripts); does not accept moved offsets')
      .option('--dry-run', 'check the plan against the cluster and show it, change nothing')
      .option('--allow-forward', 'write targets beyond a partition\'s end without asking (scripts); they are always shown')
      .option('--concurrency <n>', 'a batch plan: connectors changed at once (default 4)')
      .description('apply a saved plan (`rewind|reset|rollback ... --plan-out <file>`) exactly as saved, after checking it still fits'),
  )))).addHelpText('after', HELP)
    .action(async (file: string, opts: ApplyOptions) => (await load.applyActions()).applyFile(file, opts));
}
