// Previewed plans wait here, server-side, for the typed confirmation: the apply form carries
// only the plan's id, so what runs is exactly what was previewed (never offsets re-sent by the
// browser). A plan belongs to the session that made it and expires after 30 minutes. On a team
// store they wait in the store (migration 9), so a preview made through one console replica is
// confirmed through another; taking a plan out is one DELETE there, so it runs once.
import { randomBytes } from 'node:crypto';
import type { Plan, SharedConsoleState } from './ops-bridge.js';

const TTL_MS = 30 * 60_000;
const MAX = 200;

interface Held {
  plan: Plan;
  sessionId: string;
  context: string;
  at: number;
}

export class PlanStore {
  readonly #plans = new Map<string, Held>();
  #shared: SharedConsoleState | undefined;

  /** Keeps previews in the team store (console replicas share them). */
  share(state: SharedConsoleState): void {
    this.#shared = state;
  }

  async put(plan: Plan, sessionId: string, context: string): Promise<string> {
    const id = `plan-${randomBytes(9).toString('base64url')}`;
    if (this.#shared) {
      await this.#shared.putPreview(id, sessionId, context, plan as unknown as Record<string, unknown>, new Date(Date.now() + TTL_MS));
      return id;
    }
    this.#expire();
    this.#plans.set(id, { plan, sessionId, context, at: Date.now() });
    while (this.#plans.size > MAX) this.#plans.delete(this.#plans.keys().next().value as string);
    return id;
  }

  async get(id: string, sessionId: string): Promise<{ plan: Plan; context: string } | undefined> {
    if (this.#shared) {
      const held = await this.#shared.getPreview(id, sessionId);
      return held?.ownSession ? { plan: held.plan as unknown as Plan, context: held.context } : undefined;
    }
    this.#expire();
    const held = this.#plans.get(id);
    return held && held.sessionId === sessionId ? held : undefined;
  }

  /** The connector a plan changes, whoever's it is: only for the audit of a refused apply (never shown, never applied). */
  async connectorOf(id: string): Promise<string | undefined> {
    if (this.#shared) return ((await this.#shared.getPreview(id, ''))?.plan as unknown as Plan | undefined)?.connector;
    return this.#plans.get(id)?.plan.connector;
  }

  /** A plan runs once: false when it was taken already (by another request, or another replica). */
  async take(id: string): Promise<boolean> {
    if (this.#shared) return this.#shared.takePreview(id);
    return this.#plans.delete(id);
  }

  #expire(): void {
    const now = Date.now();
    for (const [id, held] of this.#plans) if (now - held.at > TTL_MS) this.#plans.delete(id);
  }
}
