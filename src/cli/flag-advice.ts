// Neutral hints of the lower layers (HTTP, ops) turned into advice about this CLI's own flags.
// Only commands that have the connection flags get it: `workflow run` has no --ca or --user.
import type { KafkaHint } from '../kafka/errors.js';
import type { OpsHint } from '../ops/errors.js';

const ADVICE: Record<OpsHint | KafkaHint, string> = {
  'credentials': 'check --user with --password-env/--password-file, or --token-env/--token-file, or the context\'s',
  'client-certificate': 'give --cert <pem> and --key <pem>',
  'tls-trust': 'use --ca for a private CA, or --insecure only if you accept the risk',
  'kafka-credentials': 'check --kafka-sasl-user, --kafka-sasl-mechanism and --kafka-password-env/--kafka-password-file, or the context\'s',
};

/** The advice for an error's hint (its own, or its cause's), or undefined. */
export function flagAdviceFor(err: unknown): string | undefined {
  for (let e = err as { hint?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 4; e = e.cause as typeof e, depth++) {
    if (typeof e.hint === 'string' && Object.hasOwn(ADVICE, e.hint)) return ADVICE[e.hint as OpsHint | KafkaHint];
  }
  return undefined;
}
