// The context in the address (src/web/context-path.ts) without a cluster: links keep the page's
// context, old addresses redirect to the switcher's last choice, an unknown context is a 404 naming
// the known ones, a form posted without a context is refused, and a run or a preview of another
// context is refused under this one. The contexts point at closed ports: their clusters are known
// by URL only, so a run made through the other context's URL is another cluster's.
// Real parts: a SQLite store file.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HttpClient } from '../../src/http/client.js';
import { openStore } from '../../src/store/index.js';
import { createConsole } from '../../src/web/app.js';
import { linksInContext, locationInContext, splitContextPath, switchTarget } from '../../src/web/context-path.js';

const URLS: Record<string, string> = { '': 'http://127.0.0.1:9', other: 'http://127.0.0.1:10' };

function makeConsole(store = openStore(mkdtempSync(join(tmpdir(), 'offsetctl-ctx-unit-')))) {
  const http = new HttpClient({ timeoutMs: 500 });
  return createConsole({
    store, secure: false,
    contexts: { initialLabel: 'test', names: async () => ['other', 'a b/c'], resolve: async (name) => ({ url: URLS[name] ?? 'http://127.0.0.1:11', http }) },
  });
}

async function login(ui: ReturnType<typeof makeConsole>): Promise<{ cookie: string; csrf: string }> {
  const res = await ui.app.request(`/login?token=${ui.sessions.loginToken}`);
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0]!;
  const session = ui.sessions.find(cookie.split('=')[1]);
  assert.ok(session);
  return { cookie, csrf: session.csrf };
}

test('context paths: split, links of a page, redirects, and the page the switcher keeps', () => {
  assert.deepEqual(splitContextPath('/ctx/prod/runs/run-1'), { segment: 'prod', rest: '/runs/run-1' });
  assert.deepEqual(splitContextPath('/ctx/a%20b%2Fc/connectors'), { segment: 'a b/c', rest: '/connectors' });
  assert.deepEqual(splitContextPath('/ctx/prod'), { segment: 'prod', rest: '/' });
  assert.deepEqual(splitContextPath('/runs'), { rest: '/runs' });
  const page = '<a href="/runs/r1">r</a><form action="/plans/p/apply"><button formaction="/auth/logout-everywhere"></button></form>'
    + '<link href="/assets/app.css"><div hx-get="/connectors/table?q=x" data-events="/jobs/j/events"></div><a href="/ctx/other/runs">o</a>'
    + '<td>name with href=&quot;/runs/x&quot; in it</td><a href="//evil.example/x">e</a>';
  assert.equal(linksInContext(page, '/ctx/prod'), '<a href="/ctx/prod/runs/r1">r</a><form action="/ctx/prod/plans/p/apply"><button formaction="/auth/logout-everywhere"></button></form>'
    + '<link href="/assets/app.css"><div hx-get="/ctx/prod/connectors/table?q=x" data-events="/ctx/prod/jobs/j/events"></div><a href="/ctx/other/runs">o</a>'
    + '<td>name with href=&quot;/runs/x&quot; in it</td><a href="//evil.example/x">e</a>', 'escaped text and other origins are left alone');
  assert.equal(locationInContext('/jobs/job-1', '/ctx/prod'), '/ctx/prod/jobs/job-1');
  assert.equal(locationInContext('/sessions?ended=x', '/ctx/prod'), '/sessions?ended=x');
  assert.equal(locationInContext('https://idp.example/auth', '/ctx/prod'), 'https://idp.example/auth');
  assert.equal(switchTarget('/connectors/orders-1/change'), '/connectors/orders-1');
  assert.equal(switchTarget('/connectors/orders-1/preview'), '/connectors/orders-1');
  assert.equal(switchTarget('/runs?connector=orders-1'), '/runs?connector=orders-1');
  assert.equal(switchTarget('/runs/run-1'), '/runs', 'a run is one context\'s: its list');
  assert.equal(switchTarget('/jobs/job-1'), '/jobs');
  assert.equal(switchTarget('/plans/plan-1/apply'), '/connectors');
  for (const bad of ['//evil.example/x', 'https://evil.example/', '/\\evil', '', 'runs']) assert.equal(switchTarget(bad), '/connectors', bad);
});

test('the console in a context\'s address: old paths redirect to the last choice, unknown contexts are 404, links and the switcher keep the context', async () => {
  const ui = makeConsole();
  const { cookie, csrf } = await login(ui);
  const get = (path: string) => ui.app.request(path, { headers: { cookie } });
  const post = (path: string, body: string) => ui.app.request(path, { method: 'POST', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: `csrf=${csrf}&${body}` });

  const old = await get('/runs?connector=orders-1');
  assert.equal(old.status, 303);
  assert.equal(old.headers.get('location'), '/ctx/-/runs?connector=orders-1', 'the starting context (no name: -) until the switcher chose another');
  assert.equal((await get('/')).headers.get('location'), '/ctx/-/connectors');

  const runs = await get('/ctx/other/runs');
  assert.equal(runs.status, 200);
  const html = await runs.text();
  assert.match(html, /<a href="\/ctx\/other\/snapshots">Snapshots<\/a>/, 'the navigation stays in the page\'s context');
  assert.match(html, /<option value="other" selected>/, 'the switcher shows the address\'s context, not the session\'s');
  assert.match(html, /name="page" value="\/runs"/);

  const unknown = await get('/ctx/nope/runs');
  assert.equal(unknown.status, 404);
  assert.match(await unknown.text(), /context &quot;nope&quot; is not one of this console&#39;s: &quot;-&quot;, &quot;other&quot;, &quot;a b\/c&quot;/);
  assert.equal((await get('/ctx/a%20b%2Fc/runs')).status, 200, 'a name that needs escaping');

  const switched = await post('/context', 'context=other&page=%2Fconnectors%2Forders-1%2Fchange');
  assert.equal(switched.status, 303);
  assert.equal(switched.headers.get('location'), '/ctx/other/connectors/orders-1', 'the same page in the other context');
  assert.equal((await post('/context', 'context=other&page=%2F%2Fevil.example')).headers.get('location'), '/ctx/other/connectors', 'no open redirect');
  assert.equal((await get('/runs')).headers.get('location'), '/ctx/other/runs', 'an old path follows the last choice');

  const contextless = await post('/connectors/orders-1/preview', 'mode=reset');
  assert.equal(contextless.status, 400);
  assert.match(await contextless.text(), /this address names no context/);
});

test('a run of another context\'s cluster and a preview made in another context are refused under this context\'s address', async () => {
  const store = openStore(mkdtempSync(join(tmpdir(), 'offsetctl-ctx-unit-')));
  const run = await store.beginRun({ clusterUrl: URLS.other!, clusterKey: `url:${URLS.other}`, connector: 'orders-1', operation: 'reset', workflowFile: 'w', workflowId: 'reset', inputs: {} });
  await store.finishRun(run.id, { status: 'succeeded' });
  const ui = makeConsole(store);
  const { cookie, csrf } = await login(ui);
  const there = await ui.app.request(`/ctx/other/runs/${run.id}`, { headers: { cookie } });
  assert.equal(there.status, 200, 'under its own context');
  const here = await ui.app.request(`/ctx/-/runs/${run.id}`, { headers: { cookie } });
  assert.equal(here.status, 404);
  const text = await here.text();
  assert.match(text, new RegExp(`no run ${run.id} in context this context: it is not of this context&#39;s cluster`));
  assert.doesNotMatch(text, /orders-1/, 'nothing of the run is shown');
  const resume = await ui.app.request(`/ctx/-/runs/${run.id}/resume`, {
    method: 'POST', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: `csrf=${csrf}`,
  });
  assert.equal(resume.status, 404);
  assert.ok((await store.listAudit()).some((e) => e.outcome === 'refused' && e.action === 'resume' && /is not of context/.test(e.message ?? '')), 'the attempt is audited');
});

test('a change request is its context\'s: named in another context, or made without one on another cluster, it is refused and not listed here', async () => {
  const store = openStore(mkdtempSync(join(tmpdir(), 'offsetctl-ctx-unit-')));
  const request = (clusterUrl: string, connector: string, contextName?: string) => store.createChangeRequest({
    clusterUrl, clusterKey: `url:${clusterUrl}`, operation: 'reset', connectors: [connector], plan: {}, digest: 'd',
    expiresAt: new Date(Date.now() + 3_600_000).toISOString(), ...(contextName ? { contextName } : {}),
  });
  const named = await request(URLS['']!, 'named-other', 'other');
  const elsewhere = await request(URLS.other!, 'made-on-other');
  const here = await request(URLS['']!, 'made-here');
  const ui = makeConsole(store);
  const { cookie } = await login(ui);
  const status = async (path: string) => (await ui.app.request(path, { headers: { cookie } })).status;
  assert.equal(await status(`/ctx/other/changes/${named.id}`), 200, 'under the context it names');
  assert.equal(await status(`/ctx/-/changes/${named.id}`), 404);
  assert.equal(await status(`/ctx/other/changes/${elsewhere.id}`), 200, 'no context named: its cluster\'s');
  assert.equal(await status(`/ctx/-/changes/${elsewhere.id}`), 404);
  assert.equal(await status(`/ctx/-/changes/${here.id}`), 200);
  const list = await (await ui.app.request('/ctx/-/changes', { headers: { cookie } })).text();
  assert.ok(list.includes(here.id) && !list.includes(named.id) && !list.includes(elsewhere.id), 'the list is this context\'s');
  assert.ok(list.includes(`href="/ctx/-/changes/${here.id}"`));
});
