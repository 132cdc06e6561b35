// Every step of a change request in the audit trail, on a real SQLite store: the acting identity
// is the one the face authenticated (here the console's signed-in users), a refused approval is
// an entry of its own, and a request over two connectors gives each connector its entry.
// Real parts: a SQLite store file.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../store/index.js';
import type { AuditActor } from '../../store/index.js';
import { sourcePlan } from '../../../test/support/plans.js';
import { savePlan } from './saved-plan.js';
import { finishApplying, requestChange, reviewChange, startApplying } from './requests.js';
import { OpsError } from '../errors.js';
import { historyLines, requestRow, statusText } from '../../present/index.js';

const plan = sourcePlan;

const alice: AuditActor = { user: 'alice@example.com', via: 'oidc', issuer: 'https://idp.example/', subject: 'a-1', groups: ['orders'], role: 'operator' };
const bob: AuditActor = { user: 'bob@example.com', via: 'oidc', issuer: 'https://idp.example/', subject: 'b-2', groups: ['orders'], role: 'operator' };

test('requested, a refused self-approval, approved, applying and applied: each an audit entry per connector under who acted', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'offsetctl-request-audit-'));
  const store = openStore(dir);
  try {
    const ctx = { url: 'http://127.0.0.1:8083', http: undefined as never, store };
    const as = (who: AuditActor) => ({ actor: { user: who.user, via: 'console' as const }, audit: { actor: who, context: 'prod' } });
    const saved = savePlan([plan('orders-1'), plan('orders-2')], { plannedBy: alice });
    const request = await requestChange(ctx, saved, { contextName: 'prod', ...as(alice) });
    await assert.rejects(reviewChange(ctx, request.id, 'approve', as(alice)), (err: unknown) => err instanceof OpsError && /who is you/.test(err.message));
    await reviewChange(ctx, request.id, 'approve', as(bob));
    await startApplying(ctx, request.id, as(alice));
    await finishApplying(ctx, request.id, { succeeded: true, runIds: ['run-1', 'run-2'], message: '2 of 2 connector(s) succeeded', ...as(alice) });

    const entries = (await store.listAudit({ connector: 'orders-2' })).reverse();
    assert.deepEqual(entries.map((e) => [e.action, e.outcome, e.actor.user]), [
      ['change-request', 'requested', alice.user], ['change-request', 'refused', alice.user], ['change-request', 'approved', bob.user],
      ['change-request', 'started', alice.user], ['change-request', 'succeeded', alice.user],
    ]);
    assert.deepEqual(entries[2]?.actor, bob, 'the face\'s actor is kept whole (issuer, subject, groups, role)');
    assert.ok(entries.every((e) => e.context === 'prod' && e.clusterKey === 'kafka:abc' && e.message?.startsWith(`change request ${request.id} (rewind of 2 connectors)`)));
    assert.match(entries[1]!.message!, /refused: approve refused: \[E_PLAN_STALE\] .*who is you/);
    assert.match(entries[4]!.message!, /applied: 2 of 2 connector\(s\) succeeded/);
    assert.equal((await store.listAudit({ connector: 'orders-1' })).length, 5, 'each connector of the request has its entries');
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a rejection is an entry with its reason; a store that cannot write the audit does not undo the step', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'offsetctl-request-audit-'));
  const store = openStore(dir);
  try {
    const ctx = { url: 'http://127.0.0.1:8083', http: undefined as never, store };
    const request = await requestChange(ctx, savePlan([plan('billing')], { plannedBy: alice }), { actor: { user: alice.user, via: 'console' }, audit: { actor: alice } });
    const full = new Proxy(store, {
      get: (target, key) => key === 'recordAudit' ? () => Promise.reject(new Error('disk full')) : (Reflect.get(target, key) as unknown as { bind?: (t: unknown) => unknown }).bind?.(target) ?? Reflect.get(target, key),
    });
    const failing = { ...ctx, store: full };
    const rejected = await reviewChange(failing, request.id, 'reject', { reason: 'not during the sale', actor: { user: bob.user, via: 'console' }, audit: { actor: bob } });
    assert.equal(rejected.status, 'rejected');
    assert.match(rejected.auditWarning ?? '', /the audit entry \(rejected\) of change request .* could not be written .*disk full/);
    await reviewChange(ctx, (await requestChange(ctx, savePlan([plan('billing')], { plannedBy: alice }), { actor: { user: alice.user, via: 'console' } })).id, 'reject', { reason: 'twice', actor: { user: bob.user, via: 'console' } });
    const entries = (await store.listAudit({ connector: 'billing' })).reverse();
    assert.deepEqual(entries.map((e) => [e.outcome, e.actor.user]), [['requested', alice.user], ['requested', alice.user], ['rejected', bob.user]]);
    assert.match(entries[2]!.message!, /rejected: twice$/);
    assert.equal(entries[2]!.actor.via, 'cli', 'without a face actor, the store\'s own for the step');
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the requester rejecting their own request is a withdrawal, recorded and shown so, not a review (issue 30, point 19)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'offsetctl-request-audit-'));
  const store = openStore(dir);
  try {
    const ctx = { url: 'http://127.0.0.1:8083', http: undefined as never, store };
    const as = (who: AuditActor) => ({ actor: { user: who.user, via: 'console' as const }, audit: { actor: who } });
    const own = await requestChange(ctx, savePlan([plan('refunds')], { plannedBy: alice }), as(alice));
    const withdrawn = await reviewChange(ctx, own.id, 'reject', { reason: 'wrong topic', ...as(alice) });
    assert.equal(withdrawn.status, 'rejected', 'stored as rejected: changes list --status rejected finds it');
    assert.equal(withdrawn.history.at(-1)?.message, 'withdrawn by the requester');
    assert.equal(statusText(withdrawn), 'withdrawn');
    assert.match(requestRow(withdrawn).at(-1)!, /^withdrawn by alice@example\.com$/);
    assert.match(historyLines(withdrawn).at(-1)!, /withdrawn by alice@example\.com \(the requester\) \(.*\): reason: wrong topic$/);
    const entry = (await store.listAudit({ connector: 'refunds' }))[0]!;
    assert.deepEqual([entry.outcome, entry.actor.user], ['rejected', alice.user]);
    assert.match(entry.message!, /rejected: withdrawn by the requester: wrong topic$/);
    // Someone else's rejection stays a review.
    const other = await reviewChange(ctx, (await requestChange(ctx, savePlan([plan('refunds')], { plannedBy: alice }), as(alice))).id, 'reject', { reason: 'no', ...as(bob) });
    assert.equal(statusText(other), 'rejected');
    assert.match(historyLines(other).at(-1)!, /rejected by bob@example\.com \(/);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
