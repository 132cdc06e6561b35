// What every route module of the console is handed (app.ts makes it once per console): the
// store, the contexts, the jobs and previews, and the helpers bound to this console (the page
// frame, the role checks, the refusals and their audit entries). Route modules import this file
// and the pages, never app.ts, so the console's wiring and its routes import no circle.
import type { Context } from 'hono';
import type { HttpSender } from '../../http/client.js';
import { redactText } from '../../http/redact.js';
import type { actorOf, Role, Session, Sessions } from '../auth/index.js';
import type { Html, LayoutOptions } from '../html.js';
import type { Jobs } from '../jobs.js';
import type { ConsoleLog } from '../observe/index.js';
import type { KafkaAccess, Plan, Store, WebContext } from '../ops-bridge.js';
import type { PlanStore } from '../plans.js';

export interface ContextSource {
  /** How the context the console started with is shown ('' in forms). */
  initialLabel: string;
  /** Its name in the roles (a service's default context); absent: unnamed (the login-link console, where roles do not apply). */
  initialName?: string;
  /** Its name in addresses (/ctx/<name>/…) when it is not initialName: the login-link console's --context. Neither: `-`. */
  initialPath?: string;
  /** Other contexts from the config file. */
  names(): Promise<string[]>;
  /**
   * '' is the starting connection. Throws OpsError (E_CONFIG) for an unusable context. `kafka`:
   * the context's Kafka access (log positions, sink positions); absent means none configured.
   */
  resolve(name: string): Promise<{ url: string; http: HttpSender; kafka?: KafkaAccess; approval?: 'required'; production?: true; profile?: WebContext['profile'] }>;
}

/** `context`: the one in the address ('' the starting one; context-path.ts). */
export type Env = { Variables: { session: Session; context: string } };
export type C = Context<Env>;
/** A page's header and switcher: everything of the layout but its title and navigation. */
export type Frame = Omit<LayoutOptions, 'title' | 'nav'>;

export interface RouteDeps {
  store: Store;
  contexts: ContextSource;
  sessions: Sessions;
  jobs: Jobs;
  plans: PlanStore;
  log: ConsoleLog;
  /** The client's address as the sign-in sees it (behind a trusted proxy: the forwarded one). */
  client(c: C): string;
  /** The address's context as ops sees it: its cluster, Kafka access and profiles, and the store. */
  opsContext(c: C): Promise<WebContext>;
  frame(c: C): Promise<Frame>;
  errorPage(c: C, title: string, err: unknown): Promise<Html>;
  /** The context's name in the roles: the address's, '' being the console's starting one. */
  contextName(selected: string): string;
  /** The user's role suffices for this connector (none named: for some connector) in the selected context. */
  allowed(c: C, need: Role, connector?: string): boolean;
  forbidden(c: C, need: Role, connector?: string, context?: string): Promise<Response>;
  /** An id of another context's cluster in this context's address: refused as if it did not exist (nothing of it shown). */
  notHere(c: C, title: string, what: string): Promise<Response>;
  /** A change the user's role does not allow: 403, nothing read or changed, and the attempt in the audit. */
  refuseChange(c: C, action: string, connector: string | undefined, named?: boolean): Promise<Response>;
  /** A refused act in the audit trail (a failure to write it is logged, never shown as the act's). */
  audit(c: C, what: { action: string; connector?: string }, err: unknown): Promise<void>;
  auditScope(c: C, role?: string): { actor: ReturnType<typeof actorOf>; context?: string };
  /** The selected context has `approval: required`, or the team store's policy covers the plan: a confirmed change becomes a change request. */
  approvalRequired(c: C, plan?: Plan): Promise<boolean>;
  /** A context's segment in addresses: its name; the starting one's name, else `-` (a login link's --url). */
  segmentOf(context: string): string;
  /** The context an address's segment names ('' the starting one), undefined for none of this console's. */
  contextOfSegment(segment: string): Promise<string | undefined>;
  /** The switcher's last choice, while the console still has that context. */
  lastChoice(session: Session): Promise<string>;
}

export function pageParam(c: Context): number {
  return Number.parseInt(c.req.query('page') ?? '1', 10) || 1;
}

/** An error as the CLI prints it (its code first), secrets taken out. */
export function message(err: unknown): string {
  const e = err as { code?: string; message?: string };
  return redactText(`${e.code ? `[${e.code}] ` : ''}${e.message ?? String(err)}`);
}
