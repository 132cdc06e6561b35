// A job's progress as Server-Sent Events: the events so far (a page opened late or reloaded
// catches up), then each new one as it happens, then `end` with the status.
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { Job, JobEnd, JobEvent } from './jobs.js';

export function streamJob(c: Context, job: Job): Response {
  return streamSSE(c, async (stream) => {
    const queue: Array<JobEvent | JobEnd> = [...job.events];
    if (job.end) queue.push(job.end);
    let wake: (() => void) | undefined;
    const listener = (value: JobEvent | JobEnd): void => {
      queue.push(value);
      wake?.();
    };
    job.listeners.add(listener);
    let closed = false;
    stream.onAbort(() => {
      closed = true;
      wake?.();
    });
    try {
      for (;;) {
        while (queue.length > 0) {
          const value = queue.shift()!;
          if ('seq' in value) await stream.writeSSE({ event: 'step', id: String(value.seq), data: JSON.stringify(value) });
          else {
            await stream.writeSSE({ event: 'end', data: JSON.stringify({ status: value.status }) });
            return;
          }
        }
        if (closed) return;
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
      }
    } finally {
      job.listeners.delete(listener);
    }
  });
}
