// The lifecycle room: stop, pause, resume and restart a connector, each waiting for the state
// Kafka Connect really reports (not a sleep).
export { changeConnectorState } from './lifecycle.js';
export type { LifecycleVerb, LifecycleOptions, LifecycleWait, LifecycleResult } from './lifecycle.js';
