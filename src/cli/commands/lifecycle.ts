// `offsetctl stop | pause | resume | restart <connector>`: the verbs operators need around an
// offset change (after `--leave-stopped`, before a rewind of a paused connector). Each waits
// until Kafka Connect reports the state, showing elapsed time and attempts while it waits.
import type { Command } from 'commander';
import type { LifecycleVerb } from '../../ops/lifecycle/index.js';
import { addConnectionOptions, type ConnectionOptions } from '../connection.js';
import { withSourceDbFlags, type SourceDbOptions } from '../source-db.js';
import * as load from '../load.js';

const VERBS: Array<{ verb: LifecycleVerb; description: string; examples: string[] }> = [
  { verb: 'stop', description: 'stop a connector (PUT /stop: tasks shut down, offsets can be changed) and wait until it is STOPPED', examples: ['offsetctl stop my-source', 'offsetctl stop my-source --context prod -o json'] },
  { verb: 'pause', description: 'pause a connector and wait until it and its tasks are PAUSED', examples: ['offsetctl pause my-sink', 'offsetctl --url http://localhost:8083 pause my-sink'] },
  { verb: 'resume', description: 'resume a STOPPED or PAUSED connector and wait until it and its tasks are RUNNING', examples: ['offsetctl resume my-source', 'offsetctl resume my-source --timeout-s 300'] },
  { verb: 'restart', description: 'restart a connector (and with --include-tasks its tasks) and wait until it is RUNNING again', examples: ['offsetctl restart my-sink --include-tasks --only-failed', 'offsetctl restart my-sink -o json'] },
];

export interface LifecycleFlags extends ConnectionOptions, SourceDbOptions {
  verify?: string;
  includeTasks?: boolean;
  onlyFailed?: boolean;
  timeoutS?: string;
}

export function register(program: Command): void {
  for (const { verb, description, examples } of VERBS) {
    const cmd = addConnectionOptions(program.command(verb).argument('<connector>', 'connector name').description(description))
      .option('--timeout-s <seconds>', 'how long to wait for the state', '120');
    // A Debezium source's slot is read before stop (how much WAL it may hold) and resume (a lost slot is refused).
    if (verb === 'stop' || verb === 'resume') withSourceDbFlags(cmd);
    // Verify by data after resume (src/ops/verify): it changes no offset, so there is nothing to roll back.
    if (verb === 'resume') {
      cmd.option('--verify <duration>', 'after it runs, watch up to this long (30s, 2m) that it moves (offsets, a Debezium slot, the first new records on its '
        + 'topics with a Kafka bootstrap: OFFSETCTL_BOOTSTRAP or the context\'s); exit 1 if not');
    }
    if (verb === 'restart') {
      cmd.option('--include-tasks', 'restart the tasks too').option('--only-failed', 'restart only what is FAILED');
    }
    cmd.addHelpText('after', `\nExit status: 0 the state was reached, 1 it was not (the message says what was seen), 2 refused (bad arguments, unknown connector).\n\nExamples:\n${examples.map((e) => `  ${e}`).join('\n')}`);
    cmd.action(async (connector: string, _opts: LifecycleFlags, command: Command) => (await load.lifecycleActions()).runVerb(verb, connector, command.optsWithGlobals() as LifecycleFlags));
  }
}
