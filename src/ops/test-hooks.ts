// Test hooks, for the integration tests only (documented in workflows/README.md):
//   OFFSETCTL_TEST_KILL_BEFORE_STEP=<stepId>   the process kills itself with SIGKILL just before
//                                              that step starts, as an operator's kill -9 would
//   OFFSETCTL_TEST_PAUSE_BEFORE_STEP=<stepId>  the process waits OFFSETCTL_TEST_PAUSE_MS
//                                              (default 5000) before that step, holding its lock
//   OFFSETCTL_TEST_KILL_AFTER_SEND=<METHOD>    SIGKILL as soon as Kafka Connect has answered the
//                                              first <METHOD> (PATCH or DELETE) on .../offsets,
//                                              before offsetctl reads the answer: the change was
//                                              made, its answer is lost (docs/reliability.md)
// They fire only for the workflow run of the operation itself, at the step's first attempt.
import { setTimeout as sleep } from 'node:timers/promises';
import type { HttpSender } from '../http/client.js';

const fired = new Set<string>();

export async function applyTestHooks(stepId: string, runId: string): Promise<void> {
  const env = process.env;
  if (env.OFFSETCTL_TEST_KILL_BEFORE_STEP === stepId) {
    process.stderr.write(`test hook: killing offsetctl (pid ${process.pid}, run ${runId}) before step ${stepId}\n`);
    process.kill(process.pid, 'SIGKILL');
  }
  if (env.OFFSETCTL_TEST_PAUSE_BEFORE_STEP === stepId && !fired.has(stepId)) {
    fired.add(stepId);
    await sleep(Number(env.OFFSETCTL_TEST_PAUSE_MS ?? 5000));
  }
}

/** Wraps the operation's sender with OFFSETCTL_TEST_KILL_AFTER_SEND; the sender itself when unset. */
export function withKillAfterSend(http: HttpSender): HttpSender {
  const method = process.env.OFFSETCTL_TEST_KILL_AFTER_SEND?.toUpperCase();
  if (!method) return http;
  return {
    send: async (req) => {
      const res = await http.send(req);
      if (req.method.toUpperCase() === method && /\/offsets$/.test(new URL(req.url).pathname)) {
        process.stderr.write(`test hook: killing offsetctl (pid ${process.pid}) after ${method} ${req.url} was answered ${res.status}, before reading the answer\n`);
        process.kill(process.pid, 'SIGKILL');
      }
      return res;
    },
  };
}
