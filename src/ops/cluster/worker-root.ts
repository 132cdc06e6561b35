// The worker's `GET /` ({"version": "4.1.1", "commit": ..., "kafka_cluster_id": ...}). Two checks
// of every plan read it — the cluster identity (cluster-identity.ts) and the version
// (worker-version.ts) — so a plan makes one WorkerRoot and hands it to both: one request. The read
// is lazy and kept: the first check that asks sends it, at the point in the plan it always did.
import type { HttpSender } from '../../http/client.js';

export interface RootAnswer {
  status: number;
  /** The body when it is a JSON object; undefined for anything else (HTML, plain text, no body). */
  json: Record<string, unknown> | undefined;
}

export class WorkerRoot {
  /** The worker URL without trailing slashes. */
  readonly base: string;
  #answer: Promise<RootAnswer | undefined> | undefined;
  /** Why the worker could not be reached, when read() answered undefined. */
  #failure: unknown;

  /** `url` as the operator gave it (messages quote it so). */
  constructor(
    readonly http: HttpSender,
    readonly url: string,
  ) {
    this.base = url.replace(/\/+$/, '');
  }

  /** The answer to `GET /`, or undefined when the worker could not be reached. Sent once. */
  read(): Promise<RootAnswer | undefined> {
    this.#answer ??= this.#send();
    return this.#answer;
  }

  /** The transport's error when the worker could not be reached (after read() answered undefined). */
  get failure(): unknown {
    return this.#failure;
  }

  async #send(): Promise<RootAnswer | undefined> {
    let res;
    try {
      res = await this.http.send({ method: 'GET', url: `${this.base}/`, headers: { accept: 'application/json' } });
    } catch (err) {
      this.#failure = err;
      return undefined;
    }
    let json: unknown;
    try {
      json = JSON.parse(res.body.toString('utf8'));
    } catch {
      json = undefined;
    }
    return { status: res.status, json: typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as Record<string, unknown>) : undefined };
  }
}
