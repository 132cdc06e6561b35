// The admin's view of who is signed in: one row per person (the provider's issuer and subject, or
// the proxy's user), with their sessions in every browser, and a button that ends them all (a
// person who left, a stolen laptop). Behind the sign-in proxy the next request of that person
// opens a session anew: the proxy decides who gets in.
import { csrfField, html, layout, time, type Html, type LayoutOptions } from '../html.js';
import { personKey, type Session } from '../auth/index.js';

export interface PersonSessions {
  person: string;
  sessions: Session[];
}

/** Live sessions grouped by person, the most recently active first. */
export function byPerson(sessions: Session[]): PersonSessions[] {
  const groups = new Map<string, Session[]>();
  for (const s of sessions) groups.set(personKey(s.identity), [...(groups.get(personKey(s.identity)) ?? []), s]);
  const last = (p: PersonSessions): number => Math.max(...p.sessions.map((s) => s.lastSeen));
  return [...groups].map(([person, list]) => ({ person, sessions: list })).sort((a, b) => last(b) - last(a));
}

export function sessionsPage(people: PersonSessions[], csrf: string, frame: Omit<LayoutOptions, 'title' | 'nav'>, notice?: string): Html {
  return layout({ ...frame, title: 'Sessions', nav: 'none' }, html`
${notice ? html`<p role="status" id="sessions-notice">${notice}</p>` : ''}
<p>Everyone signed in to this console now. Ending a person's sessions signs them out in every browser; the audit trail records it.</p>
<div class="scroll"><table class="data sessions">
<thead><tr><th scope="col">User</th><th scope="col">Signed in with</th><th scope="col">Groups</th><th scope="col" class="num">Sessions</th>
<th scope="col">First since</th><th scope="col">Last request</th><th scope="col">End</th></tr></thead>
<tbody>${people.map((p, i) => {
    const id = p.sessions[0]!.identity;
    const how = id.via === 'oidc' ? `OpenID Connect (subject ${id.subject ?? '?'} at ${id.issuer ?? '?'})` : id.via === 'proxy' ? 'the sign-in proxy' : id.via;
    const first = new Date(Math.min(...p.sessions.map((s) => s.createdAt))).toISOString();
    const last = new Date(Math.max(...p.sessions.map((s) => s.lastSeen))).toISOString();
    return html`<tr data-user="${id.user}" data-sessions="${p.sessions.length}"><td>${id.user}</td><td>${how}</td><td>${id.groups.join(', ')}</td>
<td class="num">${p.sessions.length}</td><td>${time(first)}</td><td>${time(last)}</td>
<td><form method="post" action="/sessions/end">${csrfField(csrf)}<input type="hidden" name="person" value="${p.person}">
<button type="submit" class="danger" id="end-${i}">End sessions</button></form></td></tr>`;
  })}</tbody></table></div>`);
}
