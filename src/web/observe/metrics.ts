// What a platform team graphs and alerts on, in Prometheus text format through prom-client: the
// console's requests (by route pattern, never the raw path: connector names would make a series
// each) and their latency, sign-ins and refusals by reason, the jobs it runs, and the errors of
// its calls to Connect and to its store. One registry per console (tests run several in one
// process), with the process's own metrics (CPU, memory, event loop lag, open handles).
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export class ConsoleMetrics {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: 'offsetctl_console_http_requests_total', help: 'HTTP requests answered, by route pattern, method and status',
    labelNames: ['route', 'method', 'status'] as const, registers: [this.registry],
  });
  readonly latency = new Histogram({
    name: 'offsetctl_console_http_request_duration_seconds', help: 'Time until the answer\'s headers (an event stream: until it starts)',
    labelNames: ['route', 'method'] as const, buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30], registers: [this.registry],
  });
  readonly signIns = new Counter({
    name: 'offsetctl_console_sign_ins_total', help: 'Sign-ins, by how (oidc, proxy, login-link), outcome (done, refused) and the reason of a refusal',
    labelNames: ['via', 'outcome', 'reason'] as const, registers: [this.registry],
  });
  readonly jobsRunning = new Gauge({ name: 'offsetctl_console_jobs_running', help: 'Changes running in this console now', registers: [this.registry] });
  readonly jobsFinished = new Counter({
    name: 'offsetctl_console_jobs_finished_total', help: 'Changes this console ran to the end, by how they ended (succeeded, unchanged, failed, refused)',
    labelNames: ['status'] as const, registers: [this.registry],
  });
  readonly connectErrors = new Counter({
    name: 'offsetctl_console_connect_errors_total', help: 'Calls to a Connect worker that got no answer (network) or a 5xx answer, by context',
    labelNames: ['context', 'kind'] as const, registers: [this.registry],
  });
  readonly storeErrors = new Counter({
    name: 'offsetctl_console_store_errors_total', help: 'Calls to the store (SQLite or the team store on PostgreSQL) that failed, by operation and error code',
    labelNames: ['operation', 'code'] as const, registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'offsetctl_console_' });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}
