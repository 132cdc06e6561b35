// Which errors mean "refused before anything changed" (the CLI's exit 2): the console shows
// them next to the form as the CLI would print them, and answers 400 instead of 500. Kafka's
// errors count: every Kafka read happens while planning, before any change (exit 2 in the CLI).
const REFUSALS = new Set(['E_USAGE', 'E_CONFIG', 'E_PREFLIGHT', 'E_OFFSETS_INVALID', 'E_CONNECTOR_NOT_FOUND', 'E_LOCKED', 'E_NOT_CONFIRMED', 'E_STORE', 'E_KAFKA', 'E_KAFKA_TOPIC_NOT_FOUND',
  // A reviewed change that no longer fits (edited, stale, moved on, offsets moved): refused, nothing changed.
  'E_PLAN_INVALID', 'E_PLAN_STALE', 'E_PLAN_MOVED']);

export function isRefusal(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && REFUSALS.has(code);
}
