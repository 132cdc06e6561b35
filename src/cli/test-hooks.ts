// Test hooks of the operator commands, for the integration tests only (documented in
// workflows/README.md). They fire before a step of the operation's own workflow run starts
// (first attempt), never during recovery:
//   OFFSETCTL_TEST_KILL_BEFORE_STEP=<stepId>    the process kills itself with SIGKILL, as an
//                                               operator's kill -9 would
//   OFFSETCTL_TEST_PAUSE_BEFORE_STEP=<stepId>   the process holds there, with its lock, until the
//     OFFSETCTL_TEST_RELEASE_FILE=<path>        file exists (deterministic: the test decides), or
//     OFFSETCTL_TEST_PAUSE_MS=<ms>              else for that long (default 5000)
//   OFFSETCTL_TEST_KILL_AFTER_SEND=<METHOD>     SIGKILL as soon as Kafka Connect has answered the
//                                               first <METHOD> (PATCH or DELETE) on .../offsets,
//                                               or POST on /connectors (a move's create), before
//                                               offsetctl reads the answer: the change was made,
//                                               its answer is lost (docs/reliability.md)
//   OFFSETCTL_TEST_SECOND_SIGNAL_DELAY_MS=<ms>   the account of a second Ctrl-C waits this long
//                                               before it reads the connector and the run, as a
//                                               slow worker would make it (the run must not go on)
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { HttpSender } from '../http/client.js';
import { currentIO } from './io.js';

export function testHooksFromEnv(env: NodeJS.ProcessEnv = currentIO().env): ((stepId: string, runId: string) => Promise<void>) | undefined {
  const kill = env.OFFSETCTL_TEST_KILL_BEFORE_STEP;
  const pause = env.OFFSETCTL_TEST_PAUSE_BEFORE_STEP;
  if (!kill && !pause) return undefined;
  const fired = new Set<string>();
  return async (stepId, runId) => {
    if (kill === stepId) {
      currentIO().stderr.write(`test hook: killing offsetctl (pid ${process.pid}, run ${runId}) before step ${stepId}\n`);
      process.kill(process.pid, 'SIGKILL');
    }
    if (pause === stepId && !fired.has(stepId)) {
      fired.add(stepId);
      const release = env.OFFSETCTL_TEST_RELEASE_FILE;
      if (release) {
        while (!existsSync(release)) await sleep(50);
      } else {
        await sleep(Number(env.OFFSETCTL_TEST_PAUSE_MS ?? 5000));
      }
    }
  };
}

/**
 * OFFSETCTL_TEST_KILL_AFTER_SEND as a wrapper of the sender the CLI hands to applyPlan (never to
 * planning, which only reads); the sender itself when unset.
 */
export function killAfterSendFromEnv(http: HttpSender, env: NodeJS.ProcessEnv = currentIO().env): HttpSender {
  const method = env.OFFSETCTL_TEST_KILL_AFTER_SEND?.toUpperCase();
  if (!method) return http;
  return {
    send: async (req) => {
      const res = await http.send(req);
      const path = new URL(req.url).pathname;
      if (req.method.toUpperCase() === method && (method === 'POST' ? /\/connectors$/.test(path) : /\/offsets$/.test(path))) {
        currentIO().stderr.write(`test hook: killing offsetctl (pid ${process.pid}) after ${method} ${req.url} was answered ${res.status}, before reading the answer\n`);
        process.kill(process.pid, 'SIGKILL');
      }
      return res;
    },
  };
}

/** OFFSETCTL_TEST_SECOND_SIGNAL_DELAY_MS: the second Ctrl-C's account waits this long first. */
export async function secondSignalDelayFromEnv(env: NodeJS.ProcessEnv = currentIO().env): Promise<void> {
  const ms = Number(env.OFFSETCTL_TEST_SECOND_SIGNAL_DELAY_MS ?? 0);
  if (ms > 0) await sleep(ms);
}
