// The console seen from outside: health and readiness for a load balancer, Prometheus metrics,
// and the structured log (access lines and security events). The rest of the console enters it here.
export { ConsoleMetrics } from './metrics.js';
export { consoleLog, type ConsoleLog } from './log.js';
export { observedContexts, observedStore } from './instrument.js';
export { metricsOnly, observeRoutes, type ReadinessSources } from './routes.js';
export { accessLog, reqIdOf } from './access.js';
