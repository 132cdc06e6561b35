// Every page's frame: the signed-in user, the recovery banner, the context switcher and the
// header's badges (production, approval required). Its own file because the badges keep a small
// cache of the team policy per context, which no route needs to see.
import type { HttpSender } from '../../http/client.js';
import type { ServiceConfig, SignIn } from '../auth/index.js';
import type { ContextBadge } from '../html.js';
import { clusterRequiresApproval, type Store } from '../ops-bridge.js';
import type { Recovery } from '../recovery.js';
import type { C, ContextSource, Frame } from './deps.js';

export interface FrameDeps {
  store: Store;
  contexts: ContextSource;
  service?: ServiceConfig;
  signIn: SignIn;
  recovery: Recovery;
}

export function framer(d: FrameDeps): (c: C) => Promise<Frame> {
  /** Per context: whether a team policy requires approval on its cluster, and when that was looked up (the header's badge). */
  const policyChecks = new Map<string, { at: number; requires: boolean }>();

  async function frame(c: C): Promise<Frame> {
    const session = c.get('session');
    const names = await d.contexts.names().catch(() => []);
    const banner = d.recovery.banner();
    return {
      ...(banner.length > 0 ? { banner } : {}),
      csrf: session.csrf,
      user: {
        name: session.identity.user, role: session.access.highest() ?? '', signOut: d.signIn.mode !== 'proxy', signOutEverywhere: d.signIn.mode === 'oidc',
        admin: d.signIn.mode !== 'link' && session.access.consoleAdmin(),
      },
      contexts: {
        current: c.get('context'),
        page: `${c.req.path}${new URL(c.req.url).search}`,
        options: await Promise.all([{ value: '', label: d.contexts.initialLabel }, ...names.map((n) => ({ value: n, label: n }))].map(badged)),
        badges: await contextBadges(session.context),
      },
    };
  }

  /**
   * The header's badges for a context, on every page: production (`production: true` in its
   * config), approval required (its config, or a team policy on its cluster). The policy is looked
   * up at most every 30 s per context (a GET / to its worker and a store read); a context that
   * cannot be reached shows what its config says.
   */
  async function contextBadges(name: string): Promise<ContextBadge[]> {
    const resolved = await d.contexts.resolve(name).catch(() => undefined);
    if (!resolved) return [];
    const badges: ContextBadge[] = [];
    if (resolved.production) badges.push({ kind: 'production', why: 'This context is a production cluster (production: true in its config)' });
    if (resolved.approval === 'required') {
      badges.push({ kind: 'approval', why: 'Changes here become change requests someone else approves (approval: required)' });
    } else if (await policyRequiresApproval(name, resolved)) {
      badges.push({ kind: 'approval', why: 'A team policy requires approval for changes on this cluster' });
    }
    return badges;
  }

  async function policyRequiresApproval(name: string, resolved: { url: string; http: HttpSender }): Promise<boolean> {
    const known = policyChecks.get(name);
    if (known && known.at > Date.now() - 30_000) return known.requires;
    const requires = await clusterRequiresApproval({ url: resolved.url, http: resolved.http, store: d.store }).catch(() => known?.requires ?? false);
    policyChecks.set(name, { at: Date.now(), requires });
    return requires;
  }

  /** A service's context that is production, or requires approval, says so in the switcher (its contexts are resolved at start: no cost). */
  async function badged(o: { value: string; label: string }): Promise<{ value: string; label: string }> {
    if (!d.service) return o;
    const flags = await d.contexts.resolve(o.value).catch(() => undefined);
    const marks = [...(flags?.production ? ['production'] : []), ...(flags?.approval === 'required' ? ['approval required'] : [])];
    return marks.length > 0 ? { ...o, label: `${o.label} · ${marks.join(' · ')}` } : o;
  }

  return frame;
}
