// The console's jobs (changes running or run in this console) and the live stream of one job's
// events. A job is shown in the context it was started in, to a role that may see every
// connector it changes.
import type { Hono } from 'hono';
import type { Job } from '../jobs.js';
import { streamJob } from '../job-stream.js';
import { OpsError } from '../ops-bridge.js';
import { jobPage, jobsPage } from '../pages/job.js';
import type { C, Env, RouteDeps } from './deps.js';

export function jobRoutes(app: Hono<Env>, d: RouteDeps): void {
  const { jobs } = d;

  app.get('/jobs', async (c) => {
    const here = await jobHere(c);
    const shown = (await jobs.all()).filter((job) => here(job) && job.connectors.every((name) => d.allowed(c, 'viewer', name)));
    return c.html(jobsPage(shown, await d.frame(c)));
  });

  app.get('/jobs/:id', async (c) => {
    const job = await jobs.find(c.req.param('id'));
    if (job && !(await jobHere(c))(job)) return d.notHere(c, 'Run', `job ${job.id}`);
    if (!job) return c.html(await d.errorPage(c, 'Run', new OpsError('E_USAGE', 'no such job in this console (jobs live as long as the console; see Runs for the history)')), 404);
    const hidden = job.connectors.find((name) => !d.allowed(c, 'viewer', name));
    if (hidden !== undefined) return d.forbidden(c, 'viewer', hidden);
    return c.html(jobPage(job, await d.frame(c)));
  });

  app.get('/jobs/:id/events', async (c) => {
    const job = jobs.get(c.req.param('id'));
    if (!job || !(await jobHere(c))(job)) return c.text('no such job in this context', 404);
    if (!job.connectors.every((name) => d.allowed(c, 'viewer', name))) return c.text('forbidden', 403);
    return streamJob(c, job);
  });

  /** A job is the context's it was started in (one of an older console, which did not say: its cluster URL's). */
  async function jobHere(c: C): Promise<(job: Job) => boolean> {
    const here = d.contextName(c.get('context'));
    const url = (await d.opsContext(c)).url;
    return (job) => (job.context !== undefined || here === '' ? (job.context ?? '') === here : job.clusterUrl === url);
  }
}
