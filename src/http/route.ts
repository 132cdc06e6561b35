// One sender for a run that talks to several servers, each with its own connection (auth, TLS,
// failover): a request goes to the sender whose base URL it starts with. A move talks to two
// Kafka Connect clusters through one workflow run; each cluster keeps its own credentials, and a
// request for neither is refused rather than sent with the wrong ones.
import type { HttpRequest, HttpResponse, HttpSender } from './client.js';

export class RoutingSender implements HttpSender {
  readonly #routes: Array<{ base: string; sender: HttpSender }>;

  /** `routes`: base URL (without a trailing slash) → its sender. The longest matching base wins. */
  constructor(routes: ReadonlyArray<{ base: string; sender: HttpSender }>) {
    this.#routes = routes.map((r) => ({ base: r.base.replace(/\/+$/, ''), sender: r.sender })).sort((a, b) => b.base.length - a.base.length);
  }

  send(req: HttpRequest): Promise<HttpResponse> {
    const route = this.#routes.find((r) => req.url === r.base || req.url.startsWith(`${r.base}/`) || req.url.startsWith(`${r.base}?`));
    if (!route) return Promise.reject(new Error(`no connection is configured for ${req.url} (known: ${this.#routes.map((r) => r.base).join(', ')})`));
    return route.sender.send(req);
  }
}
