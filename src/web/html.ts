// Server-side HTML: Hono's `html` tag escapes every interpolated value (nested fragments are
// kept as they are), so a connector name or a task trace can never become markup. Our templates
// never interpolate promises, which keeps rendering synchronous.
import { html as honoHtml, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import { redactText } from '../http/redact.js';

export type Html = HtmlEscapedString;
export { raw };

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  return honoHtml(strings, ...values) as Html;
}

/** Text that came from outside (Kafka Connect, the store): registered secrets masked. */
export function text(value: unknown): string {
  return redactText(typeof value === 'string' ? value : JSON.stringify(value) ?? '');
}

export function when(cond: unknown, fragment: () => Html): Html | '' {
  return cond ? fragment() : '';
}

export interface LayoutOptions {
  title: string;
  /** The navigation entry to mark as current. */
  nav: 'connectors' | 'runs' | 'snapshots' | 'changes' | 'audit' | 'none';
  csrf?: string;
  /** Who is signed in (shown with a sign-out button where the console can sign people out). */
  user?: { name: string; role: string; signOut: boolean; signOutEverywhere?: boolean; admin?: boolean };
  /** `page`: the page shown, which the switcher opens in the other context (context-path.ts). */
  contexts?: { current: string; options: Array<{ value: string; label: string }>; badges?: ContextBadge[]; page?: string };
  /** Shown under the heading with role=alert. */
  error?: string;
  /** Seconds after which the page reloads itself where JavaScript is off (a running job: app.js follows it live otherwise). */
  refreshWithoutScript?: number;
  /** The console's own news for everyone (interrupted runs it found at start and what it did with them). */
  banner?: string[];
}

/** What the selected context is: a production cluster, or one where changes need someone else's approval. */
export interface ContextBadge {
  kind: 'production' | 'approval';
  /** Why, for the tooltip. */
  why: string;
}

const NAV: Array<[LayoutOptions['nav'], string, string]> = [
  ['connectors', '/connectors', 'Connectors'],
  ['runs', '/runs', 'Runs'],
  ['snapshots', '/snapshots', 'Snapshots'],
  ['changes', '/changes', 'Changes'],
  ['audit', '/audit', 'Audit'],
];

/** The page frame: skip link, navigation, context switcher, main content. No inline script or style. */
export function layout(opts: LayoutOptions, body: Html): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="htmx-config" content='{"includeIndicatorStyles":false,"allowEval":false,"allowScriptTags":false,"selfRequestsOnly":true}'>
<title>${opts.title} · offsetctl</title>
<link rel="stylesheet" href="/assets/app.css">
${opts.refreshWithoutScript ? html`<noscript><meta http-equiv="refresh" content="${opts.refreshWithoutScript}"></noscript>` : ''}
<script src="/assets/htmx.min.js" defer></script>
<script src="/assets/app.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
  <a class="brand" href="/connectors">offsetctl</a>
  <nav aria-label="Main">
    <ul>${NAV.map(([key, href, label]) => html`<li><a href="${href}"${key === opts.nav ? raw(' aria-current="page"') : ''}>${label}</a></li>`)}</ul>
  </nav>
  ${opts.contexts && opts.csrf ? contextSwitcher(opts.contexts, opts.csrf) : ''}
  ${opts.contexts?.badges && opts.contexts.badges.length > 0 ? contextBadges(opts.contexts.badges) : ''}
  ${opts.user ? userBox(opts.user, opts.csrf) : ''}
</header>
<main id="main" tabindex="-1">
${opts.banner && opts.banner.length > 0
    ? html`<div class="notice recovery" role="status">${opts.banner.map((line) => html`<p>${text(line)}</p>`)}</div>` : ''}
<h1>${opts.title}</h1>
${opts.error ? html`<div class="error" role="alert"><strong>Refused, nothing was changed:</strong> <span class="error-text">${text(opts.error)}</span></div>` : ''}
${body}
</main>
</body>
</html>`;
}

function contextSwitcher(contexts: NonNullable<LayoutOptions['contexts']>, csrf: string): Html {
  return html`<form class="context" method="post" action="/context">
  <input type="hidden" name="csrf" value="${csrf}">
  ${contexts.page ? html`<input type="hidden" name="page" value="${contexts.page}">` : ''}
  <label for="context-select">Context</label>
  <select id="context-select" name="context">
    ${contexts.options.map((o) => html`<option value="${o.value}"${o.value === contexts.current ? raw(' selected') : ''}>${o.label}</option>`)}
  </select>
  <button type="submit">Switch</button>
</form>`;
}

function contextBadges(badges: ContextBadge[]): Html {
  const one = (b: ContextBadge): Html => html`<span class="badge ${b.kind === 'production' ? 'bad' : 'warn'}" id="context-${b.kind}" title="${b.why}">${
    b.kind === 'production' ? 'production' : 'approval required'}</span>`;
  return html`<p class="context-badges">${badges.map(one)}</p>`;
}

function userBox(user: NonNullable<LayoutOptions['user']>, csrf: string | undefined): Html {
  return html`<div class="user"><span class="user-name">${user.name}</span>${user.role ? html` <span class="muted user-role">(${user.role})</span>` : ''}
  ${user.admin ? html`<a href="/sessions" id="sessions-link">Sessions</a>` : ''}
  ${user.signOut && csrf ? html`<form class="inline" method="post" action="/auth/logout"><input type="hidden" name="csrf" value="${csrf}">
  <button type="submit" id="sign-out">Sign out</button>${user.signOutEverywhere ? html`
  <button type="submit" id="sign-out-everywhere" formaction="/auth/logout-everywhere"
    title="End every session of yours, in every browser">Sign out everywhere</button>` : ''}
  </form>` : ''}</div>`;
}

export function csrfField(csrf: string): Html {
  return html`<input type="hidden" name="csrf" value="${csrf}">`;
}

/** An ISO time as `2026-11-30 15:47:03Z`, machine-readable in `datetime`. */
export function time(iso: string | undefined): Html | '' {
  if (!iso) return '';
  return html`<time datetime="${iso}">${iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}</time>`;
}

export function stateBadge(state: string): Html {
  const s = state.toUpperCase();
  const cls = s === 'RUNNING' || s === 'SUCCEEDED' ? 'ok' : s === 'FAILED' ? 'bad' : s === 'INTERRUPTED' ? 'warn' : 'neutral';
  return html`<span class="badge ${cls}">${state}</span>`;
}
