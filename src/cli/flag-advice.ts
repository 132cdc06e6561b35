// Neutral hints of the lower layers turned into advice about this CLI's own flags. Each set of
// flags belongs to some commands only: the connection hints (HTTP, ops) to the commands that have
// --user, --ca, ...; the engine's hints to the `workflow` commands, which have --source, --server,
// --input. A `rewind` that runs a shipped workflow is never told about `workflow run`'s flags.
import type { ArazzoHint, ErrorInfo } from '../arazzo/errors.js';
import type { WorkflowResult } from '../arazzo/index.js';
import type { KafkaHint } from '../kafka/errors.js';
import type { OpsHint } from '../ops/errors.js';

/** Which flags the command that failed has. */
export type FlagSet = 'connection' | 'workflow';

const CONNECTION_ADVICE: Record<OpsHint | KafkaHint, string> = {
  'credentials': 'check --user with --password-env/--password-file, or --token-env/--token-file, or the context\'s',
  'client-certificate': 'give --cert <pem> and --key <pem>',
  'tls-trust': 'use --ca for a private CA, or --insecure only if you accept the risk',
  'kafka-credentials': 'check --kafka-sasl-user, --kafka-sasl-mechanism and --kafka-password-env/--kafka-password-file, or the context\'s',
};

/** The `workflow` commands' flags for each engine hint. The type checker sees every kind has its line. */
function workflowAdvice(hint: ArazzoHint): string {
  switch (hint.kind) {
    case 'map-source':
      return `map it with --source ${hint.source ?? '<name>'}=<file>`;
    case 'allow-remote':
      return `pass --allow-remote, or --source ${hint.source}=path/to/description.yaml`;
    case 'set-server':
      return `pass --server ${hint.source}=http://host:port (or --server http://host:port for all sources)`;
    case 'choose-workflow':
      return 'choose one with --workflow <id>';
    case 'provide-input':
      return `pass ${hint.names.length === 1 ? 'it' : 'them'} with ${hint.names.map((n) => `--input ${n}=...`).join(' ')} or in --inputs <file>`;
    case 'raise-step-budget':
      return 'raise it with --max-steps <n>';
    case 'unknown-source-name':
      return `check --${hint.given === 'map' ? 'source' : 'server'} ${hint.name}=...`;
  }
}

function isArazzoHint(hint: unknown): hint is ArazzoHint {
  return typeof hint === 'object' && hint !== null && typeof (hint as { kind?: unknown }).kind === 'string';
}

/** The advice for a hint (an error's own, or its cause's, or a run result's error), or undefined. */
export function flagAdviceFor(err: unknown, flags: FlagSet = 'connection'): string | undefined {
  for (let e = err as { hint?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 4; e = e.cause as typeof e, depth++) {
    if (flags === 'connection' && typeof e.hint === 'string' && Object.hasOwn(CONNECTION_ADVICE, e.hint)) return CONNECTION_ADVICE[e.hint as OpsHint | KafkaHint];
    if (flags === 'workflow' && isArazzoHint(e.hint)) return workflowAdvice(e.hint);
  }
  return undefined;
}

/** A message followed by its flag advice, the way every face prints it. */
export function withFlagAdvice(message: string, err: unknown, flags: FlagSet): string {
  const advice = flagAdviceFor(err, flags);
  return advice ? `${message} — ${advice}` : message;
}

/** A run's error as the `workflow` commands show it: the neutral message, then the flag advice. */
export function advisedError(info: ErrorInfo): ErrorInfo {
  return { ...info, message: withFlagAdvice(info.message, info, 'workflow') };
}

/** A run result with every error advised, for the `workflow run` renderers (text, JSON, JUnit). */
export function advisedResult(result: WorkflowResult): WorkflowResult {
  return {
    ...result,
    ...(result.error ? { error: advisedError(result.error) } : {}),
    steps: result.steps.map((s) => (s.error ? { ...s, error: advisedError(s.error) } : s)),
  };
}
