// Who is signed in, and ending a person's sessions everywhere (a person who left, a lost laptop):
// for an admin of the whole console (every context, every connector). Every POST has passed the
// CSRF check (app.ts); ending sessions is audited as a sign-out by the admin, naming the person.
import type { Hono } from 'hono';
import { actorOf, personKey } from '../auth/index.js';
import { html, layout } from '../html.js';
import { str } from '../forms.js';
import { reqIdOf } from '../observe/index.js';
import { byPerson, sessionsPage } from '../pages/sessions.js';
import type { Env, RouteDeps } from './deps.js';

export function sessionRoutes(app: Hono<Env>, d: RouteDeps): void {
  app.get('/sessions', async (c) => {
    const session = c.get('session');
    if (!session.access.consoleAdmin()) {
      const why = `${session.identity.user} may not see the console's sessions: that needs admin on every context (your role is ${session.access.describe()})`;
      return c.html(layout({ ...(await d.frame(c)), title: 'Forbidden', nav: 'none', error: why }, html``), 403);
    }
    const ended = c.req.query('ended');
    return c.html(sessionsPage(byPerson(d.sessions.live()), session.csrf, await d.frame(c), ended ? `Ended ${ended}.` : undefined));
  });

  app.post('/sessions/end', async (c) => {
    const session = c.get('session');
    const person = str((await c.req.parseBody()).person);
    if (!session.access.consoleAdmin()) return d.refuseChange(c, 'end sessions', undefined);
    const whose = d.sessions.live().find((s) => personKey(s.identity) === person)?.identity;
    const ended = await d.sessions.endPerson(person);
    const name = whose?.user ?? person;
    const what = `${ended} session${ended === 1 ? '' : 's'} of ${name}`;
    d.log.info({ event: 'sessions-ended', reqId: reqIdOf(c), user: session.identity.user, ip: d.client(c), of: name, sessions: ended },
      `${session.identity.user} ended ${what}`);
    await d.store.recordAudit({
      actor: actorOf(session.identity, 'admin'), action: 'sign-out', outcome: 'done',
      message: `${session.identity.user} ended every session of ${name} (${person}): ${ended} ended`,
    }).catch((err: unknown) => {
      d.log.error({ event: 'audit-failed', action: 'sign-out', err: (err as Error).message }, 'could not write the audit entry for ended sessions');
    });
    return c.redirect(`/sessions?ended=${encodeURIComponent(what)}`, 303);
  });
}
