// Roles from the identity provider's groups: the config maps a group to viewer (read), operator
// (plan and apply changes) or admin (an operator who also sees the whole audit trail), each grant
// scoped to contexts and a connector name pattern. A user's rights are the union of the grants of
// their groups. Checked on the server for every request (app.ts), whatever a page showed.

export type Role = 'viewer' | 'operator' | 'admin';

const RANK: Record<Role, number> = { viewer: 1, operator: 2, admin: 3 };

export interface Grant {
  groups: string[];
  role: Role;
  /** undefined: every context. */
  contexts?: string[];
  connectors: RegExp;
  /** The pattern as written (for pages and messages). */
  pattern: string;
}

/** What one signed-in user may do. */
export class Access {
  readonly grants: readonly Grant[];

  constructor(grants: readonly Grant[]) {
    this.grants = grants;
  }

  /** Every grant whose group the user is in. */
  static of(groups: readonly string[], all: readonly Grant[]): Access {
    return new Access(all.filter((g) => g.groups.some((group) => groups.includes(group))));
  }

  /** Everything, everywhere: the one person on loopback who started the console with a login link. */
  static everything(): Access {
    return new Access([{ groups: [], role: 'admin', connectors: /(?:)/, pattern: '.*' }]);
  }

  /** `need` or more on this connector of this context; without a connector: on some connector of it. */
  may(need: Role, context: string, connector?: string): boolean {
    return this.grants.some((g) => RANK[g.role] >= RANK[need] && inContext(g, context) && (connector === undefined || g.connectors.test(connector)));
  }

  /** `need` or more on every connector of this context (an unscoped grant). */
  mayAll(need: Role, context: string): boolean {
    return this.grants.some((g) => RANK[g.role] >= RANK[need] && inContext(g, context) && g.pattern === '.*');
  }

  /** An admin on every context and connector: may see and end everyone's sessions. */
  consoleAdmin(): boolean {
    return this.grants.some((g) => g.role === 'admin' && g.contexts === undefined && g.pattern === '.*');
  }

  /** The highest role anywhere (for the page header), or undefined: no role at all. */
  highest(): Role | undefined {
    let best: Role | undefined;
    for (const g of this.grants) if (!best || RANK[g.role] > RANK[best]) best = g.role;
    return best;
  }

  /** `operator on prod for ^orders-; viewer on every context` (for refusals and the header). */
  describe(): string {
    if (this.grants.length === 0) return 'no role';
    return this.grants.map((g) => `${g.role} on ${g.contexts ? g.contexts.join(', ') : 'every context'}${g.pattern === '.*' ? '' : ` for ${g.pattern}`}`).join('; ');
  }
}

function inContext(g: Grant, context: string): boolean {
  return g.contexts === undefined || g.contexts.includes(context);
}

/** The `roles:` list of the service config; `fail` throws the config error naming the field. */
export function parseGrants(raw: unknown, contextNames: readonly string[], fail: (field: string, why: string) => never): Grant[] {
  if (!Array.isArray(raw) || raw.length === 0) fail('roles', 'must be a list of grants such as {group: team-orders, role: operator, contexts: [prod], connectors: "^orders-"}');
  return (raw as unknown[]).map((item, i) => {
    const at = `roles[${i}]`;
    if (item === null || typeof item !== 'object' || Array.isArray(item)) fail(at, 'must be a mapping with group (or groups), role, and optionally contexts and connectors');
    const g = item as Record<string, unknown>;
    for (const key of Object.keys(g)) if (!['group', 'groups', 'role', 'contexts', 'connectors'].includes(key)) fail(`${at}.${key}`, 'unknown field (known: group, groups, role, contexts, connectors)');
    if ((g.group === undefined) === (g.groups === undefined)) fail(`${at}.group`, 'give group: <name> or groups: [<name>, ...] (one of them)');
    const groups = g.group !== undefined ? [g.group] : g.groups;
    if (!Array.isArray(groups) || groups.length === 0 || !groups.every((v) => typeof v === 'string' && v !== '')) fail(`${at}.${g.group !== undefined ? 'group' : 'groups'}`, 'must be a group name (or a list of them) as the identity provider sends it');
    if (g.role !== 'viewer' && g.role !== 'operator' && g.role !== 'admin') fail(`${at}.role`, `must be viewer, operator or admin (got ${JSON.stringify(g.role)})`);
    const grant: Grant = { groups: groups as string[], role: g.role as Role, connectors: /(?:)/, pattern: '.*' };
    if (g.contexts !== undefined && g.contexts !== '*') {
      const list = typeof g.contexts === 'string' ? [g.contexts] : g.contexts;
      if (!Array.isArray(list) || list.length === 0) fail(`${at}.contexts`, 'must be a list of context names, or "*" for every context');
      for (const name of list as unknown[]) {
        if (typeof name !== 'string' || !contextNames.includes(name)) fail(`${at}.contexts`, `${JSON.stringify(name)} is not one of the contexts (${contextNames.join(', ')})`);
      }
      grant.contexts = list as string[];
    }
    if (g.connectors !== undefined && g.connectors !== '.*') {
      if (typeof g.connectors !== 'string' || g.connectors === '') fail(`${at}.connectors`, 'must be a regular expression over connector names, such as "^orders-"');
      try {
        grant.connectors = new RegExp(g.connectors as string, 'u');
      } catch (err) {
        fail(`${at}.connectors`, `not a valid regular expression (${(err as Error).message})`);
      }
      grant.pattern = g.connectors as string;
    }
    return grant;
  });
}
