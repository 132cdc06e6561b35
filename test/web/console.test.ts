// The console's guards without a cluster: login token → cookie, session and CSRF checks, the
// security headers, the --listen refusal, secrets kept off pages, escaping, and the live view's
// reading of the engine's events. Requests go through the Hono app in memory; nothing here
// reaches Kafka Connect (the context points at a closed port and no handler under test calls it).
// Real parts: a loopback HTTP server, a SQLite store file.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HttpClient } from '../../src/http/client.js';
import { openStore } from '../../src/store/index.js';
import { createConsole, CSP } from '../../src/web/app.js';
import { liveView, type Job } from '../../src/web/jobs.js';
import { jobPage } from '../../src/web/pages/job.js';
import { changePage } from '../../src/web/pages/change.js';
import { connectorPage, shownSinkPartitions } from '../../src/web/pages/connector.js';
import { positionOf } from '../../src/web/forms.js';
import { positionFlags, positionSupport, type WebContext } from '../../src/web/ops-bridge.js';
import { readLogPositions } from '../../src/web/log-positions.js';
import { resolveKafkaAccess } from '../../src/cli/kafka-settings.js';
import { connectorsTable } from '../../src/web/pages/connectors.js';
import { isLoopback, parseListen, startConsole } from '../../src/web/server.js';
import type { RunEvent } from '../../src/arazzo/index.js';

function makeConsole(secure = false, store = openStore(mkdtempSync(join(tmpdir(), 'offsetctl-ui-unit-')))) {
  const http = new HttpClient({ timeoutMs: 1000 });
  return createConsole({
    store, secure,
    contexts: { initialLabel: 'test', names: async () => ['other'], resolve: async () => ({ url: 'http://127.0.0.1:9', http }) },
  });
}

async function login(console: ReturnType<typeof makeConsole>): Promise<{ cookie: string; setCookie: string; csrf: string }> {
  const res = await console.app.request(`/login?token=${console.sessions.loginToken}`);
  assert.equal(res.status, 303);
  assert.equal(res.headers.get('location'), '/connectors');
  const setCookie = res.headers.get('set-cookie') ?? '';
  const cookie = setCookie.split(';')[0]!;
  const session = console.sessions.find(cookie.split('=')[1]);
  assert.ok(session);
  return { cookie, setCookie, csrf: session.csrf };
}

test('a worker that cannot say which Kafka cluster it serves: the Runs page lists the runs made through its URL, whatever key they were stored under', async () => {
  const store = openStore(mkdtempSync(join(tmpdir(), 'offsetctl-ui-unit-')));
  const newRun = (clusterUrl: string, connector: string) => ({ clusterUrl, clusterKey: 'kafka:abc', connector, operation: 'reset' as const, workflowFile: 'w', workflowId: 'w', inputs: {} });
  const here = await store.beginRun(newRun('http://127.0.0.1:9', 'through-this-url'));
  await store.finishRun(here.id, { status: 'succeeded' });
  const there = await store.beginRun(newRun('http://127.0.0.1:10', 'through-another-url'));
  await store.finishRun(there.id, { status: 'succeeded' });
  const ui = makeConsole(false, store);
  const { cookie } = await login(ui);
  const page = await (await ui.app.request('/ctx/-/runs', { headers: { cookie } })).text();
  assert.ok(page.includes(here.id), 'the run made through this URL is listed');
  assert.ok(!page.includes(there.id), 'the cluster is unknown: a run through another URL may be another cluster\'s');
});

test('every request needs the session; the login token works once and becomes an HttpOnly SameSite=Strict cookie', async () => {
  const ui = makeConsole();
  for (const path of ['/connectors', '/runs', '/assets/app.js', '/jobs/x/events']) {
    const res = await ui.app.request(path);
    assert.equal(res.status, 403, path);
    assert.equal(res.headers.get('content-security-policy'), CSP);
  }
  assert.equal((await ui.app.request('/login?token=wrong')).status, 403);
  const token = ui.sessions.loginToken;
  const { setCookie, cookie } = await login(ui);
  assert.match(setCookie, /HttpOnly/);
  assert.match(setCookie, /SameSite=Strict/);
  assert.doesNotMatch(setCookie, /Secure/);
  assert.equal((await ui.app.request(`/login?token=${token}`)).status, 403, 'the token is spent');
  const page = await ui.app.request('/ctx/-/runs', { headers: { cookie } });
  assert.equal(page.status, 200);
  assert.equal(page.headers.get('content-security-policy'), CSP);
  assert.equal(page.headers.get('x-frame-options'), 'DENY');
  const body = await page.text();
  assert.doesNotMatch(body, /<script>|<script [^>]*>[^<]/, 'no inline script');
  assert.match(body, /<script src="\/assets\/htmx.min.js" defer><\/script>/);
  assert.equal((await ui.app.request('/assets/htmx.min.js', { headers: { cookie } })).status, 200);
  // A cluster that does not answer is said on the page, which still renders.
  const down = await ui.app.request('/ctx/-/connectors', { headers: { cookie } });
  assert.equal(down.status, 200);
  assert.match(await down.text(), /<div class="error" role="alert">[^<]*127\.0\.0\.1:9/);
});

test('under TLS the session cookie is Secure', async () => {
  const { setCookie } = await login(makeConsole(true));
  assert.match(setCookie, /Secure/);
});

test('a POST needs the session\'s CSRF token; other methods are refused', async () => {
  const ui = makeConsole();
  const { cookie, csrf } = await login(ui);
  const form = (body: string) => ({ method: 'POST', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body });
  assert.equal((await ui.app.request('/context', form('context=other'))).status, 403);
  assert.equal((await ui.app.request('/context', form('context=other&csrf=wrong'))).status, 403);
  assert.equal((await ui.app.request('/ctx/-/connectors/x/preview', form('mode=reset'))).status, 403);
  const unknown = await ui.app.request('/context', form(`context=nope&csrf=${csrf}`));
  assert.equal(unknown.status, 400);
  assert.match(await unknown.text(), /context &quot;nope&quot; not found/);
  const switched = await ui.app.request('/context', form(`context=other&csrf=${csrf}`));
  assert.equal(switched.status, 303);
  assert.equal(switched.headers.get('location'), '/ctx/other/connectors', 'no page given: the connectors page of the chosen context');
  assert.equal((await ui.app.request('/ctx/-/connectors', { method: 'PUT', headers: { cookie } })).status, 405);
  // Bad position input gets the CLI's message before anything is read (the cluster here does not answer).
  const shift = await ui.app.request('/ctx/-/connectors/x/preview', form(`mode=position&position=shift&shift=abc&csrf=${csrf}`));
  assert.equal(shift.status, 400);
  assert.match(await shift.text(), /--shift-by: expected a whole number of records like -5000/);
  const future = await ui.app.request('/ctx/-/connectors/x/preview', form(`mode=position&position=time&time=2999-01-01T00:00&csrf=${csrf}`));
  assert.equal(future.status, 400);
  assert.match(await future.text(), /--to-time: 2999-01-01T00:00:00\.000Z is in the future/);
  // Issue 20, point 6: a date that does not exist was read as 2 March and previewed.
  const feb30 = await ui.app.request('/ctx/-/connectors/x/preview', form(`mode=position&position=time&time=2026-02-30T00:00&csrf=${csrf}`));
  assert.equal(feb30.status, 400);
  assert.match(await feb30.text(), /--to-time: &quot;2026-02-30T00:00Z&quot; is not a real date and time \(February 2026 has 28 days\)/);
  const early = await ui.app.request('/ctx/-/connectors/x/preview', form(`mode=position&position=time&time=1969-12-31T23:59:59.999&csrf=${csrf}`));
  assert.equal(early.status, 400);
  assert.match(await early.text(), /before 1970-01-01T00:00:00Z/);
  // A preview that does not exist cannot be applied, whatever is typed.
  const apply = await ui.app.request('/ctx/-/plans/plan-x/apply', form(`confirm=x&csrf=${csrf}`));
  assert.equal(apply.status, 400);
});

test('--listen: loopback only without TLS; host:port is checked', async () => {
  assert.deepEqual(parseListen('127.0.0.1:7070'), { host: '127.0.0.1', port: 7070 });
  assert.deepEqual(parseListen('[::1]:0'), { host: '::1', port: 0 });
  assert.throws(() => parseListen('7070'), /--listen: expected host:port/);
  assert.throws(() => parseListen('a:99999'), /--listen/);
  assert.ok(isLoopback('127.0.0.1') && isLoopback('::1') && isLoopback('localhost'));
  assert.ok(!isLoopback('0.0.0.0') && !isLoopback('192.168.1.5') && !isLoopback('example.com'));
  const store = openStore(mkdtempSync(join(tmpdir(), 'offsetctl-ui-unit-')));
  await assert.rejects(
    startConsole({ store, secure: false, listen: { host: '0.0.0.0', port: 0 }, contexts: { initialLabel: 'x', names: async () => [], resolve: async () => { throw new Error('unused'); } } }),
    (err: { code?: string; field?: string; message?: string }) => err.code === 'E_USAGE' && err.field === 'listen' && /--tls-cert/.test(err.message ?? ''),
  );
});

test('secrets in a connector config never reach the page; names are escaped', () => {
  const html = String(connectorPage({
    info: {
      name: 'db-<sink>', type: 'sink', state: 'RUNNING', tasks: [],
      config: { 'connection.password': 'hunter2-secret', 'sasl.jaas.config': 'org.apache.kafka... password="jaas-secret";', 'consumer.override.ssl.key.password': 'kp-secret', topics: 'orders' },
    },
    offsets: [], page: 1, runs: [], snapshots: [],
  }, {}));
  for (const secret of ['hunter2-secret', 'jaas-secret', 'kp-secret']) assert.ok(!html.includes(secret), secret);
  assert.match(html, /<code>connection\.password<\/code><\/td><td><span class="muted">\(hidden\)<\/span>/);
  assert.match(html, /<code>orders<\/code>/);
  assert.ok(!html.includes('db-<sink>') && html.includes('db-&lt;sink&gt;'));
  const table = String(connectorsTable({ connectors: [{ name: '<img src=x>', type: 'source', state: 'RUNNING', tasks: [] }], lastRuns: new Map(), filter: '"><script>', clusterUrl: 'http://c' }));
  assert.ok(!table.includes('<img src=x>') && !table.includes('"><script>'));
});

test('the live view shows a polling step as waiting, not as failures, and each real failure once', () => {
  const view = liveView();
  const at = '2026-01-01T00:00:00Z';
  const w = 'wf';
  const events: RunEvent[] = [
    { type: 'workflow.started', at, workflowId: w, inputs: {} },
    { type: 'step.started', at, workflowId: w, stepId: 'waitForStopped', attempt: 1 },
    { type: 'request.sent', at, workflowId: w, stepId: 'waitForStopped', method: 'GET', url: 'http://c/status', headers: {} },
    { type: 'action.taken', at, workflowId: w, stepId: 'waitForStopped', action: { name: 'poll', type: 'retry' }, reason: 'failureActions' },
    { type: 'step.finished', at, workflowId: w, stepId: 'waitForStopped', status: 'failed', outputs: {} },
    { type: 'step.started', at, workflowId: w, stepId: 'waitForStopped', attempt: 2 },
    { type: 'action.taken', at, workflowId: w, stepId: 'waitForStopped', action: { name: 'poll', type: 'retry' }, reason: 'failureActions' },
    { type: 'step.finished', at, workflowId: w, stepId: 'waitForStopped', status: 'failed', outputs: {} },
    { type: 'step.started', at, workflowId: w, stepId: 'waitForStopped', attempt: 3 },
    { type: 'step.finished', at, workflowId: w, stepId: 'waitForStopped', status: 'passed', outputs: {} },
    { type: 'step.started', at, workflowId: w, stepId: 'rewindOffsets', attempt: 1 },
    { type: 'step.finished', at, workflowId: w, stepId: 'rewindOffsets', status: 'failed', outputs: {}, error: { code: 'E_X', message: 'Connect said no' } },
    { type: 'workflow.finished', at, workflowId: w, status: 'failed', outputs: {} },
  ];
  const shown = events.map((e, i) => view(e, i)).filter((e) => e !== undefined).map((e) => e.text);
  assert.deepEqual(shown, [
    'workflow wf started', 'waitForStopped started', 'waitForStopped: waiting (poll)', 'waitForStopped passed',
    'rewindOffsets started', 'rewindOffsets failed: Connect said no', 'workflow wf failed',
  ]);
});

test('positions are offered for sinks with Kafka access; log columns appear when Kafka answered, else one line says why', () => {
  const info = { name: 'orders-sink', type: 'sink' as const, state: 'RUNNING', tasks: [], config: {} };
  const offsets = [{ partition: { kafka_topic: 'orders', kafka_partition: 0 }, offset: { kafka_offset: 5 } }];
  const without = String(changePage({ info, offsets, page: 1, csrf: 'c', positions: { offered: false, why: 'positions need Kafka access: none configured', missing: 'kafka-access' } }, {}));
  const withPositions = String(changePage({ info, offsets, page: 1, csrf: 'c', positions: { offered: true, kinds: ['earliest', 'latest', 'time', 'shift'], lookup: 'looked up on Kafka at k:9092' } }, {}));
  assert.doesNotMatch(without, /name="position"/);
  assert.match(without, /Not offered: positions need Kafka access/);
  for (const value of ['earliest', 'latest', 'time', 'shift']) assert.match(withPositions, new RegExp(`name="position" value="${value}"`));
  assert.match(withPositions, /type="datetime-local" name="time"/);
  const kept = String(changePage({ info, offsets, page: 1, csrf: 'c', positions: { offered: true, kinds: ['earliest', 'latest', 'time', 'shift'], lookup: 'looked up on Kafka at k:9092' }, position: { kind: 'shift', time: '', shift: '1.5<x>' } }, {}));
  assert.match(kept, /value="shift" id="position-shift" checked/);
  assert.match(kept, /value="1\.5&lt;x&gt;"/, 'the typed shift is kept, escaped');
  // A FileStreamSource can only go back to byte 0: the form offers that one position and names its flag.
  const fileSource = String(changePage({ info: { ...info, type: 'source' as const }, offsets, page: 1, csrf: 'c', positions: { offered: true, kinds: ['earliest'], lookup: 'position 0 of /tmp/in.txt: the whole file is read again' } }, {}));
  assert.match(fileSource, /name="position" value="earliest"/);
  for (const value of ['latest', 'time', 'shift']) assert.doesNotMatch(fileSource, new RegExp(`name="position" value="${value}"`));
  assert.match(fileSource, /rewind orders-sink --to-earliest<\/code>: position 0 of \/tmp\/in\.txt/);

  const plain = String(connectorPage({ info, offsets, page: 1, runs: [], snapshots: [] }, {}));
  const noKafka = String(connectorPage({ info, offsets, page: 1, runs: [], snapshots: [], log: { status: 'unavailable', reason: 'no Kafka bootstrap servers are configured' } }, {}));
  const down = String(connectorPage({ info, offsets, page: 1, runs: [], snapshots: [], log: { status: 'error', message: 'Kafka at 127.0.0.1:1 over PLAINTEXT: cannot read the cluster metadata' } }, {}));
  const withLog = String(connectorPage({ info, offsets, page: 1, runs: [], snapshots: [], log: { status: 'ok', servers: 'k:9092', positions: { 'orders/0': { logStart: 2, logEnd: 9, lag: 4 } } } }, {}));
  for (const page of [plain, noKafka, down]) assert.doesNotMatch(page, /Log start<\/th>/);
  assert.match(noKafka, /id="log-note">Log start, log end and lag are not shown: no Kafka bootstrap servers are configured/);
  assert.match(down, /role="status">Log start, log end and lag are not shown: Kafka at 127\.0\.0\.1:1/);
  for (const page of [noKafka, down]) assert.match(page, /<td class="num">5<\/td>/, 'the offsets table still renders');
  assert.match(withLog, /Log start<\/th><th scope="col" class="num">Log end<\/th><th scope="col" class="num">Lag/);
  assert.match(withLog, /<td class="num">2<\/td><td class="num">9<\/td><td class="num">4<\/td>/);
});

test('log positions are read for the shown page of partitions only', () => {
  const offsets = Array.from({ length: 250 }, (_v, p) => ({ partition: { kafka_topic: 't', kafka_partition: p }, offset: p === 120 ? null : { kafka_offset: p } }));
  const shown = shownSinkPartitions(offsets, 2);
  assert.equal(shown.length, 100);
  assert.deepEqual(shown[0], { topic: 't', partition: 100, committed: 100 });
  assert.deepEqual(shown[20], { topic: 't', partition: 120, committed: null });
  assert.equal(shownSinkPartitions(offsets, 3).length, 50);
});

test('the position form becomes the CLI\'s flags: a UTC time gets its zone, texts go to the CLI\'s parser unchanged', () => {
  assert.deepEqual(positionFlags({ kind: 'time', time: '2026-11-30T09:55' }), { toTime: '2026-11-30T09:55Z' });
  assert.deepEqual(positionFlags({ kind: 'time', time: '2026-11-30T09:55:30' }), { toTime: '2026-11-30T09:55:30Z' });
  assert.deepEqual(positionFlags({ kind: 'shift', by: '-3' }), { shiftBy: '-3' });
  assert.deepEqual(positionFlags({ kind: 'earliest' }), { toEarliest: true });
  assert.throws(() => positionFlags({ kind: 'time', time: ' ' }), /--to-time: no time given/);
  assert.throws(() => positionOf({ position: 'sideways' }), /position: choose earliest, latest, time or shift/);
});

test('log positions against a broker that does not answer: a message naming the servers and the SASL user, never the password', async () => {
  const access = resolveKafkaAccess({}, { bootstrap: '127.0.0.1:1', kafkaSaslUser: 'alice', kafkaPasswordEnv: 'UI_TEST_KAFKA_PW' }, { UI_TEST_KAFKA_PW: 'pw-not-for-pages-7731' });
  const info = { name: 'orders-sink', type: 'sink' as const, state: 'RUNNING', tasks: [], config: { topics: 'orders' } };
  const http = new HttpClient({ timeoutMs: 1000 });
  const result = await readLogPositions({ url: 'http://127.0.0.1:9', http }, info, access, [{ topic: 'orders', partition: 0, committed: 5 }], 4000);
  assert.equal(result.status, 'error');
  const shown = String(connectorPage({ info, offsets: [{ partition: { kafka_topic: 'orders', kafka_partition: 0 }, offset: { kafka_offset: 5 } }], page: 1, runs: [], snapshots: [], log: result }, {}));
  // The client's retries may outlast the page's wait: either way the servers and the user are named.
  assert.match(shown, /not shown: Kafka at 127\.0\.0\.1:1 over SASL_PLAINTEXT as alice \(PLAIN\)(: cannot read the cluster metadata| did not answer within 4 s)/);
  assert.doesNotMatch(shown, /pw-not-for-pages-7731/);
  const none = await readLogPositions({ url: 'http://127.0.0.1:9', http }, info, resolveKafkaAccess({}, {}, {}), []);
  assert.equal(none.status, 'unavailable');
  await http.close();
});

test('the offsets table is paged: 100 rows a page, whatever the partition count', () => {
  const info = { name: 'big-sink', type: 'sink' as const, state: 'RUNNING', tasks: [], config: {} };
  const offsets = Array.from({ length: 1050 }, (_v, p) => ({ partition: { kafka_topic: 't', kafka_partition: p }, offset: { kafka_offset: p } }));
  const last = String(connectorPage({ info, offsets, page: 11, runs: [], snapshots: [] }, {}));
  assert.equal(last.match(/<tr><td>t<\/td>/g)?.length, 50);
  assert.match(last, /Page 11 of 11 \(rows 1001–1050 of 1050\)/);
  const first = String(connectorPage({ info, offsets, page: 1, runs: [], snapshots: [] }, {}));
  assert.equal(first.match(/<tr><td>t<\/td>/g)?.length, 100);
  assert.match(first, /href="\/connectors\/big-sink\?page=2" rel="next"/);
});

test('positions offered per connector kind, as `rewind --to-...` accepts them: sink and MirrorMaker every kind with Kafka, FileStreamSource earliest, other sources none', () => {
  const access = resolveKafkaAccess({}, { bootstrap: 'k:9092' }, {});
  const ctx = { url: 'http://w:8083', kafka: access } as unknown as WebContext;
  const bare = { url: 'http://w:8083' } as unknown as WebContext;
  const info = (type: 'sink' | 'source', config: Record<string, string>) => ({ name: 'c', type, state: 'RUNNING', tasks: [], config });
  const sink = positionSupport(ctx, info('sink', { 'connector.class': 'FileStreamSink' }));
  assert.deepEqual(sink.offered && sink.kinds, ['earliest', 'latest', 'time', 'shift']);
  assert.match(sink.offered ? sink.lookup : '', /topic the sink consumes, looked up on Kafka at k:9092/);
  const override = positionSupport(bare, info('sink', { 'consumer.override.bootstrap.servers': 'SASL_SSL://o:9093' }));
  assert.match(override.offered ? override.lookup : '', /at o:9093/, "a sink's own servers are used without a context bootstrap");
  const noKafka = positionSupport(bare, info('sink', {}));
  assert.deepEqual(noKafka.offered ? 'offered' : noKafka.missing, 'kafka-access');
  const mirror = positionSupport(bare, info('source', { 'connector.class': 'org.apache.kafka.connect.mirror.MirrorSourceConnector', 'source.cluster.bootstrap.servers': 'up:9092' }));
  assert.deepEqual(mirror.offered && mirror.kinds, ['earliest', 'latest', 'time', 'shift']);
  assert.match(mirror.offered ? mirror.lookup : '', /source cluster at up:9092/);
  const file = positionSupport(ctx, info('source', { 'connector.class': 'FileStreamSource', file: '/data/in.txt' }));
  assert.deepEqual(file.offered && file.kinds, ['earliest', 'latest'], 'a file source: byte 0 or its size (issue 20, point 15)');
  const plain = positionSupport(ctx, info('source', { 'connector.class': 'io.debezium.connector.postgresql.PostgresConnector' }));
  assert.equal(plain.offered, false);
  assert.match(plain.offered ? '' : plain.why, /offsets are its plugin's own/);
  assert.equal(plain.offered ? '' : plain.missing, 'position-support');
});

test('over TLS every answer carries Strict-Transport-Security; over loopback HTTP none does', async () => {
  for (const [secure, expected] of [[true, 'max-age=31536000'], [false, null]] as const) {
    const ui = makeConsole(secure);
    for (const path of ['/connectors', '/login?token=x']) assert.equal((await ui.app.request(path)).headers.get('strict-transport-security'), expected, `${path} secure=${secure}`);
  }
});

test('a run page shows a polling step\'s attempts that were tried again as RETRIED, not as red FAILED rows; a last failure stays FAILED', async () => {
  const store = openStore(mkdtempSync(join(tmpdir(), 'offsetctl-ui-unit-')));
  const run = await store.beginRun({ clusterUrl: 'http://127.0.0.1:9', clusterKey: 'url:http://127.0.0.1:9', connector: 'orders-1', operation: 'reset', workflowFile: 'w', workflowId: 'reset', inputs: {} });
  const step = (stepId: string, status: 'passed' | 'failed') => store.recordStep(run.id, {
    workflowId: 'reset', stepId, status, outputs: {}, finishedAt: new Date().toISOString(), ...(status === 'failed' ? { error: { message: `${stepId} not yet` } } : {}),
  });
  await step('stopConnector', 'passed');
  await step('waitStopped', 'failed');
  await step('waitStopped', 'failed');
  await step('waitStopped', 'passed');
  await step('verify', 'failed');
  await store.finishRun(run.id, { status: 'succeeded' });
  const ui = makeConsole(false, store);
  const { cookie } = await login(ui);
  const page = await (await ui.app.request(`/ctx/-/runs/${run.id}`, { headers: { cookie } })).text();
  const statuses = [...page.matchAll(/data-step-status="([a-z]+)"/g)].map((m) => m[1]);
  assert.deepEqual(statuses, ['passed', 'retried', 'retried', 'passed', 'failed']);
  assert.equal([...page.matchAll(/badge bad">FAILED/g)].length, 1, 'only the last, real failure is red');
});

test('the stylesheet is public (the sign-in and sign-out pages use it); the scripts still need a session', async () => {
  const ui = makeConsole();
  const css = await ui.app.request('/assets/app.css');
  assert.equal(css.status, 200);
  assert.match(css.headers.get('content-type') ?? '', /^text\/css/);
  assert.equal((await ui.app.request('/assets/app.js')).status, 403);
  const refused = await ui.app.request('/login?token=wrong');
  assert.match(await refused.text(), /<link rel="stylesheet" href="\/assets\/app\.css">/, 'the refusal page is styled');
});

test('without JavaScript a running job\'s page reloads itself; a finished one does not', () => {
  const job: Job = {
    id: 'job-1', title: 'rewind of orders-1', connectors: ['orders-1'], clusterUrl: 'http://127.0.0.1:9', startedAt: new Date().toISOString(), events: [],
    listeners: new Set(), controller: new AbortController(), by: 'alice',
  };
  const refresh = /<noscript><meta http-equiv="refresh" content="3"><\/noscript>/;
  assert.match(String(jobPage(job, {})), refresh);
  job.end = { status: 'succeeded', message: 'done', warnings: [] };
  assert.doesNotMatch(String(jobPage(job, {})), refresh);
});
