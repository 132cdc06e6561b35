// The line a change prints before it takes over an interrupted run: whose run it was (user@host,
// the process, since when) and what happens to it, so nobody finishes a colleague's run unawares.
import { actorName, describeActor, type RunRecord, type Store } from '../../store/index.js';

export async function takeoverLine(store: Store, runId: string, how: 'resume' | 'supersede'): Promise<string> {
  let run: RunRecord;
  try {
    run = await store.getRun(runId);
  } catch {
    return `taking over run ${runId}`;
  }
  const lock = await store.lockOf(run.clusterKey, run.connector).catch(() => undefined);
  const holder = lock && lock.runId === run.id ? lock.actor : run.resumedBy ?? run.actor;
  const gone = lock?.expiresAt ? `its lease expired at ${lock.expiresAt}` : `pid ${run.pid} on ${run.hostname} is gone`;
  const started = run.actor.user === holder.user && run.actor.host === holder.host ? '' : `, started by ${actorName(run.actor)}`;
  const what = how === 'resume' ? 'finishing it from its last step' : 'it is marked abandoned and this rollback undoes it';
  // describeActor already names the holder (`alice@vm (OS user …, pid …)`): once, parentheses balanced.
  return `taking over run ${run.id} of ${describeActor(holder)}${started}; ${run.operation} of ${run.connector} since ${run.startedAt}; ${gone}: ${what}`;
}
