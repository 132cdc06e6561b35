// The helpers bound to one console, made once and handed to every route module as RouteDeps:
// the role checks in the address's context, the refusals (403, 404 for another context's ids)
// with their audit entries and log lines, and the ops context of the address. One place, so
// every page refuses and audits the same way.
import { actorOf, type Role, type ServiceConfig, type Session, type Sessions, type SignIn } from '../auth/index.js';
import { html, layout, type Html } from '../html.js';
import type { Jobs } from '../jobs.js';
import { reqIdOf, type ConsoleLog } from '../observe/index.js';
import { approvalRule, auditRefusal, OpsError, type Plan, type Store, type WebContext } from '../ops-bridge.js';
import type { PlanStore } from '../plans.js';
import type { Recovery } from '../recovery.js';
import { UNNAMED_SEGMENT } from '../context-path.js';
import { message, type C, type ContextSource, type RouteDeps } from './deps.js';
import { framer } from './frame.js';

export interface ConsoleParts {
  store: Store;
  contexts: ContextSource;
  service?: ServiceConfig;
  signIn: SignIn;
  sessions: Sessions;
  jobs: Jobs;
  plans: PlanStore;
  recovery: Recovery;
  log: ConsoleLog;
}

export function routeDeps(p: ConsoleParts): RouteDeps {
  const { store, contexts, log } = p;
  const frame = framer({ store, contexts, signIn: p.signIn, recovery: p.recovery, ...(p.service ? { service: p.service } : {}) });
  const client = (c: C): string => p.signIn.client(c);

  async function approvalRequired(c: C, plan?: Plan): Promise<boolean> {
    if ((await contexts.resolve(c.get('context'))).approval === 'required') return true;
    if (plan === undefined || plan.runId !== undefined) return false;
    return (await approvalRule(store, { clusterKey: plan.clusterKey, connector: plan.connector, action: plan.operation })) !== undefined;
  }

  function segmentOf(context: string): string {
    return context || contexts.initialPath || contexts.initialName || UNNAMED_SEGMENT;
  }

  async function contextOfSegment(segment: string): Promise<string | undefined> {
    if (segment === segmentOf('')) return '';
    return (await contexts.names()).includes(segment) ? segment : undefined;
  }

  async function lastChoice(session: Session): Promise<string> {
    return session.context === '' || (await contexts.names().catch((): string[] => [])).includes(session.context) ? session.context : '';
  }

  function contextName(selected: string): string {
    return selected || contexts.initialName || '';
  }

  function allowed(c: C, need: Role, connector?: string): boolean {
    return c.get('session').access.may(need, contextName(c.get('context')), connector);
  }

  async function notHere(c: C, title: string, what: string): Promise<Response> {
    const where = contextName(c.get('context')) || 'this context';
    return c.html(await errorPage(c, title, new OpsError('E_PREFLIGHT', `no ${what} in context ${where}: it is not of this context's cluster`)), 404);
  }

  async function forbidden(c: C, need: Role, connector?: string, context?: string): Promise<Response> {
    const session = c.get('session');
    const where = context ?? contextName(c.get('context'));
    const what = connector ? `${connector} on ${where || 'this context'}` : (where || 'this context');
    const why = `${session.identity.user} may not ${need === 'viewer' ? 'see' : 'change'} ${what}: your role is ${session.access.describe()}`;
    return c.html(layout({ ...(await frame(c)), title: 'Forbidden', nav: 'none', error: why }, html``), 403);
  }

  async function refuseChange(c: C, action: string, connector: string | undefined, named = true): Promise<Response> {
    const session = c.get('session');
    const where = contextName(c.get('context'));
    const err = Object.assign(new Error(`${session.identity.user} may not ${action} ${(named && connector) || 'connectors'} on ${where || 'this context'}: the role is ${session.access.describe()}`), { code: 'E_FORBIDDEN' });
    const about = { action, ...(connector ? { connector } : {}), context: where };
    log.warn({ event: 'forbidden', reqId: reqIdOf(c), user: session.identity.user, ip: client(c), ...about }, err.message);
    await audit(c, { action, ...(connector ? { connector } : {}) }, err);
    return forbidden(c, 'operator', named ? connector : undefined);
  }

  function auditScope(c: C, role?: string): { actor: ReturnType<typeof actorOf>; context?: string } {
    const session = c.get('session');
    const where = contextName(c.get('context'));
    return { actor: actorOf(session.identity, role), ...(where ? { context: where } : {}) };
  }

  async function audit(c: C, what: { action: string; connector?: string }, err: unknown): Promise<void> {
    let url: string | undefined;
    try {
      url = (await contexts.resolve(c.get('context'))).url;
    } catch {
      // The context cannot be resolved: the entry still says who tried what.
    }
    await auditRefusal({ store, ...(url ? { url } : {}) }, auditScope(c), what, err).catch((e: unknown) => {
      log.error({ event: 'audit-failed', action: what.action, err: (e as Error).message }, `could not write the audit entry for a refused ${what.action}`);
    });
  }

  async function opsContext(c: C): Promise<WebContext> {
    const { url, http, kafka, profile } = await contexts.resolve(c.get('context'));
    // The context's Kafka cluster narrows a source's lock to its Connect cluster (ops/cluster/connect-group.ts).
    const kafkaCluster = kafka?.bootstrap ? await kafka.settingsFor(kafka.bootstrap).catch(() => undefined) : undefined;
    return { url, http, store, ...(kafka ? { kafka } : {}), ...(kafkaCluster ? { kafkaCluster } : {}), ...(profile ? { profile } : {}) };
  }

  async function errorPage(c: C, title: string, err: unknown): Promise<Html> {
    return layout({ ...(await frame(c)), title, nav: 'none', error: message(err) }, html``);
  }

  return {
    store, contexts, sessions: p.sessions, jobs: p.jobs, plans: p.plans, log, client, opsContext, frame, errorPage, contextName, allowed, forbidden,
    notHere, refuseChange, audit, auditScope, approvalRequired, segmentOf, contextOfSegment, lastChoice,
  };
}
