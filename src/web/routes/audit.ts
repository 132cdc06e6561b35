// The Audit page and its export. An admin of the context sees the whole trail; others the entries
// of this context's cluster about connectors they may see here, and their own about none (signing
// in and out). The chain's verdict is the whole trail's, as `offsetctl audit verify` walks it.
import type { Hono } from 'hono';
import { listAudit, verifyAuditTrail, type AuditRecord } from '../ops-bridge.js';
import { auditLines, auditPage, type AuditChainView, type AuditView } from '../pages/audit.js';
import type { C, Env, RouteDeps } from './deps.js';

export function auditRoutes(app: Hono<Env>, d: RouteDeps): void {
  app.get('/audit', async (c) => c.html(auditPage(await auditView(c), await d.frame(c))));

  // JSON lines, oldest first: the same export as `offsetctl audit -o json`.
  app.get('/audit/export', async (c) => {
    const view = await auditView(c);
    return c.body(auditLines(view.entries), 200, { 'Content-Type': 'application/x-ndjson; charset=utf-8', 'Content-Disposition': 'attachment; filename="offsetctl-audit.jsonl"' });
  });

  async function auditView(c: C): Promise<AuditView> {
    const ctx = await d.opsContext(c);
    const connector = c.req.query('connector') || undefined;
    const sinceText = c.req.query('since') || '';
    const since = sinceText ? new Date(sinceText) : undefined;
    if (since && Number.isNaN(since.getTime())) {
      return { entries: [], ...(connector ? { connector } : {}), since: sinceText, error: `since: not a time (${JSON.stringify(sinceText)}); use a date and time such as 2026-11-30T09:00Z` };
    }
    const session = c.get('session');
    const admin = session.access.mayAll('admin', d.contextName(c.get('context')));
    // An admin sees the whole trail; others the entries of this context's cluster about connectors
    // they may see here, and their own entries about no connector (signing in and out).
    const all: AuditRecord[] = await listAudit(ctx, { ...(connector ? { connector } : {}), ...(since ? { since } : {}), limit: 1000 }, { thisCluster: !admin });
    const entries = admin ? all : all.filter((e) => (e.connector ? d.allowed(c, 'viewer', e.connector) : e.actor.user === session.identity.user));
    return { entries, ...(connector ? { connector } : {}), since: sinceText, chain: await auditChain() };
  }

  /** The whole trail's chain, as `offsetctl audit verify` walks it (every entry, whoever may see it: a verdict, one id). */
  async function auditChain(): Promise<AuditChainView> {
    try {
      const r = await verifyAuditTrail(d.store);
      return { ok: r.ok, entries: r.entries, ...(r.head ? { head: r.head } : {}), ...(r.firstBroken ? { firstBroken: { id: r.firstBroken.id, message: r.firstBroken.message } } : {}) };
    } catch (err) {
      return { ok: false, entries: 0, error: (err as Error).message };
    }
  }
}
