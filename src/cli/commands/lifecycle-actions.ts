// The actions of `pause|resume|stop|restart` (registered in lifecycle.ts). Loaded only through their
// door (load.lifecycleActions()), so they import what they need statically; --verify loads the
// verify room with them.
import type { LifecycleVerb, LifecycleWait } from '../../ops/lifecycle/index.js';
import { OpsError } from '../../ops/errors.js';
import { type Connection, resolveConnection } from '../connection.js';
import type { ProfileReport } from '../../ops/profiles/index.js';
import { stderr, stdout } from './say.js';
import { profileOptionsFor } from '../source-db.js';
import { currentIO } from '../io.js';
import * as load from '../load.js';
import type { LifecycleFlags } from './lifecycle.js';
import { changeStateAudited } from '../../ops/audit/index.js';
import { openCommandStore } from '../store-choice.js';
import { durationMs, markBeforeChange, verifyResumed } from './verify-after.js';
import { refuseIfGovernedElsewhere } from '../governance-check.js';
import { cliActorFor } from '../actor.js';
import * as ops from '../../ops/index.js';

export async function runVerb(verb: LifecycleVerb, connector: string, opts: LifecycleFlags): Promise<void> {
  const timeoutS = Number(opts.timeoutS ?? '120');
  if (!Number.isFinite(timeoutS) || timeoutS <= 0) throw new OpsError('E_USAGE', `--timeout-s ${JSON.stringify(opts.timeoutS)}: expected a positive number of seconds`, { field: 'timeout-s' });
  const verifyMs = opts.verify !== undefined ? durationMs(opts.verify) : undefined;
  const c = await resolveConnection(opts);
  await refuseIfGovernedElsewhere(c, opts as import('../kafka-settings.js').KafkaFlags).catch(async (err: unknown) => {
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
  const scope = { actor: await cliActorFor(store), ...(c.contextName ? { context: c.contextName } : {}) };
  const progress = waitPrinter(connector);
  let mark: import('../../ops/verify/index.js').RecordMark | undefined;
  try {
    const profile = verb === 'stop' || verb === 'resume' ? await profileCheck(c, connector, verb, opts) : undefined;
    // What "moving" is measured from: the offsets as the connector is resumed.
    const ops = verifyMs !== undefined ? await load.ops() : undefined;
    const resumedAt = ops ? ops.offsetEntries(await ops.getOffsets(c.http, c.url, connector)) : [];
    // A source's topics marked before the resume is sent: what comes after is what it wrote once running.
    const info = (text: string): void => { (c.output === 'json' ? stderr : stdout)(`${text}\n`); };
    mark = verifyMs !== undefined ? await markBeforeChange({ url: c.url, http: c.http }, c, connector, opts, info) : undefined;
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
      await verifyResumed({ url: c.url, http: c.http }, c, connector, resumedAt, verifyMs, opts, mark);
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
export async function profileCheck(c: Connection, connector: string, verb: 'stop' | 'resume', opts: LifecycleFlags): Promise<ProfileReport | undefined> {
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
export function waitPrinter(connector: string): { onWait: (w: LifecycleWait) => void; done: () => void } {
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
