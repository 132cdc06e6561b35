// `offsetctl stop | pause | resume | restart <connector>`: the verbs operators need around an
// offset change (after `--leave-stopped`, before a rewind of a paused connector). Each waits
// until Kafka Connect reports the state, showing elapsed time and attempts while it waits.
import type { Command } from 'commander';
import type { LifecycleVerb, LifecycleWait } from '../../ops/lifecycle/index.js';
import { OpsError } from '../../ops/errors.js';
import { addConnectionOptions, type Connection, type ConnectionOptions, resolveConnection } from '../connection.js';
import type { ProfileReport } from '../../ops/profiles/index.js';
import { stderr, stdout } from './say.js';
import { profileOptionsFor, withSourceDbFlags, type SourceDbOptions } from '../source-db.js';
import { currentIO } from '../io.js';
import * as load from '../load.js';

const VERBS: Array<{ verb: LifecycleVerb; description: string; examples: string[] }> = [
  { verb: 'stop', description: 'stop a connector (PUT /stop: tasks shut down, offsets can be changed) and wait until it is STOPPED', examples: ['offsetctl stop my-source', 'offsetctl stop my-source --context prod -o json'] },
  { verb: 'pause', description: 'pause a connector and wait until it and its tasks are PAUSED', examples: ['offsetctl pause my-sink', 'offsetctl --url http://localhost:8083 pause my-sink'] },
  { verb: 'resume', description: 'resume a STOPPED or PAUSED connector and wait until it and its tasks are RUNNING', examples: ['offsetctl resume my-source', 'offsetctl resume my-source --timeout-s 300'] },
  { verb: 'restart', description: 'restart a connector (and with --include-tasks its tasks) and wait until it is RUNNING again', examples: ['offsetctl restart my-sink --include-tasks --only-failed', 'offsetctl restart my-sink -o json'] },
];

interface LifecycleFlags extends ConnectionOptions, SourceDbOptions {
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
    cmd.action(async (connector: string, _opts: LifecycleFlags, command: Command) => runVerb(verb, connector, command.optsWithGlobals() as LifecycleFlags));
  }
}

async function runVerb(verb: LifecycleVerb, connector: string, opts: LifecycleFlags): Promise<void> {
  const timeoutS = Number(opts.timeoutS ?? '120');
  if (!Number.isFinite(timeoutS) || timeoutS <= 0) throw new OpsError('E_USAGE', `--timeout-s ${JSON.stringify(opts.timeoutS)}: expected a positive number of seconds`, { field: 'timeout-s' });
  const { changeStateAudited } = await load.opsAudit();
  const { openCommandStore } = await load.storeChoice();
  const verifyMs = opts.verify !== undefined ? (await load.verifyAfter()).durationMs(opts.verify) : undefined;
  const c = await resolveConnection(opts);
  await (await load.governanceCheck()).refuseIfGovernedElsewhere(c, opts as import('../kafka-settings.js').KafkaFlags).catch(async (err: unknown) => {
    await c.http.close();
    throw err;
  });
  // Every state change is audited (who stopped a production connector must be findable): the
  // store is the one a change would use, and it is opened before anything is sent.
  let store;
  try {
    store = await openCommandStore(c.store);
  } catch (err) {
    await c.http.close();
    throw err;
  }
  const scope = { actor: await (await load.actor()).cliActorFor(store), ...(c.contextName ? { context: c.contextName } : {}) };
  const progress = waitPrinter(connector);
  let mark: import('../../ops/verify/index.js').RecordMark | undefined;
  try {
    const profile = verb === 'stop' || verb === 'resume' ? await profileCheck(c, connector, verb, opts) : undefined;
    // What "moving" is measured from: the offsets as the connector is resumed.
    const ops = verifyMs !== undefined ? await load.ops() : undefined;
    const resumedAt = ops ? ops.offsetEntries(await ops.getOffsets(c.http, c.url, connector)) : [];
    // A source's topics marked before the resume is sent: what comes after is what it wrote once running.
    const verifying = verifyMs !== undefined ? await load.verifyAfter() : undefined;
    const info = (text: string): void => { (c.output === 'json' ? stderr : stdout)(`${text}\n`); };
    mark = verifying ? await verifying.markBeforeChange({ url: c.url, http: c.http }, c, connector, opts, info) : undefined;
    const result = await changeStateAudited({ url: c.url, http: c.http, store }, scope, connector, verb, {
      ...(profile?.needsTasks ? { needsTasks: true } : {}),
      ...(opts.includeTasks ? { includeTasks: true } : {}),
      ...(opts.onlyFailed ? { onlyFailed: true } : {}),
      timeoutMs: timeoutS * 1000,
      onWait: progress.onWait,
    });
    progress.done();
    for (const w of result.warnings) stderr(`warning: ${w}\n`);
    if (c.output === 'json') {
      stdout(`${JSON.stringify(profile ? { ...result, profile: { name: profile.profile, facts: profile.facts }, warnings: [...result.warnings, ...profile.warnings] } : result, null, 2)}\n`);
      return;
    }
    const secs = (result.elapsedMs / 1000).toFixed(1);
    const tasks = result.tasks.length === 0 ? '' : ` (tasks ${result.tasks.map((t) => `${t.id}:${t.state}`).join(' ')})`;
    stdout(result.unchanged
      ? `connector ${connector} is already ${result.state}; nothing sent\n`
      : `connector ${connector}: ${result.before} → ${result.state}${tasks} in ${secs} s (${result.attempts} status read${result.attempts === 1 ? '' : 's'})\n`);
    if (verifyMs !== undefined) {
      await (await load.verifyAfter()).verifyResumed({ url: c.url, http: c.http }, c, connector, resumedAt, verifyMs, opts, mark);
    }
  } catch (err) {
    progress.done();
    throw err;
  } finally {
    await mark?.watch?.stop();
    await c.http.close();
    await store.close();
  }
}

/**
 * The connector's profile before stop or resume (src/ops/profiles): a Debezium source's slot is
 * read (what it holds while stopped, whether it is lost); what it says is shown before the request
 * is sent, and a refusal (exit 2) sends nothing. Kafka's own plugins and unknown ones add nothing.
 */
async function profileCheck(c: Connection, connector: string, verb: 'stop' | 'resume', opts: LifecycleFlags): Promise<ProfileReport | undefined> {
  const ops = await load.ops();
  const info = await ops.getConnectorInfo(c.http, c.url, connector);
  const name = ops.profileFor(info.config).name;
  if (name === 'kafka' || name === 'generic') return undefined;
  const current = ops.offsetEntries(await ops.getOffsets(c.http, c.url, connector));
  const report = await ops.checkProfile({ operation: verb, connector: info, current, options: await profileOptionsFor(opts, c.context, connector) });
  const human = c.output === 'json' ? stderr : stdout;
  for (const fact of report.facts) human(`  ${fact}\n`);
  for (const w of report.warnings) stderr(`warning: ${w}\n`);
  return report;
}

/**
 * Progress of a wait on stderr. On a terminal one line is rewritten on every poll; otherwise
 * (logs, CI) a line is printed when the wait passes 1 s and then every 5 s.
 */
function waitPrinter(connector: string): { onWait: (w: LifecycleWait) => void; done: () => void } {
  const tty = currentIO().stderr.isTTY === true;
  let nextLineAt = 1000;
  let drawn = false;
  return {
    onWait: (w) => {
      const line = `waiting for ${connector} to be ${w.target}: ${(w.elapsedMs / 1000).toFixed(1)} s, attempt ${w.attempt} (seen ${w.seen})`;
      if (tty) {
        stderr(`\r\x1b[2K${line}`);
        drawn = true;
      } else if (w.elapsedMs >= nextLineAt) {
        stderr(`${line}\n`);
        nextLineAt = w.elapsedMs + 5000;
      }
    },
    done: () => {
      if (drawn) stderr('\r\x1b[2K');
    },
  };
}
