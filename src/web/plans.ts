// Previewed plans wait here, server-side, for the typed confirmation: the apply form carries
// only the plan's id, so what runs is exactly what was previewed (never offsets re-sent by the
// browser). A plan belongs to the session that made it and expires after 30 minutes.
import { randomBytes } from 'node:crypto';
import type { Plan } from './ops-bridge.js';

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

  put(plan: Plan, sessionId: string, context: string): string {
    this.#expire();
    const id = `plan-${randomBytes(9).toString('base64url')}`;
    this.#plans.set(id, { plan, sessionId, context, at: Date.now() });
    while (this.#plans.size > MAX) this.#plans.delete(this.#plans.keys().next().value as string);
    return id;
  }

  get(id: string, sessionId: string): Held | undefined {
    this.#expire();
    const held = this.#plans.get(id);
    return held && held.sessionId === sessionId ? held : undefined;
  }

  /** The connector a plan changes, whoever's it is: only for the audit of a refused apply (never shown, never applied). */
  connectorOf(id: string): string | undefined {
    return this.#plans.get(id)?.plan.connector;
  }

  /** A plan runs once. */
  take(id: string): void {
    this.#plans.delete(id);
  }

  #expire(): void {
    const now = Date.now();
    for (const [id, held] of this.#plans) if (now - held.at > TTL_MS) this.#plans.delete(id);
  }
}
