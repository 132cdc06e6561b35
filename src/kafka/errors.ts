// One error type for the Kafka client layer. Every Kafka read offsetctl makes happens while
// planning, before any change, so src/cli/exit-status.ts maps both codes to exit status 2.
// `hint` is neutral (no flag names): a face turns it into advice about its own flags.

export type KafkaErrorCode =
  | 'E_KAFKA' // the cluster could not be reached, refused the credentials, or answered with an error
  | 'E_KAFKA_TOPIC_NOT_FOUND'; // a topic asked about does not exist on the cluster

/** What usually fixes the error: the SASL user, mechanism or password. */
export type KafkaHint = 'kafka-credentials';

export class KafkaError extends Error {
  readonly code: KafkaErrorCode;
  readonly field: string | undefined;
  readonly hint: KafkaHint | undefined;

  constructor(code: KafkaErrorCode, message: string, options: { field?: string; hint?: KafkaHint; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'KafkaError';
    this.code = code;
    this.field = options.field;
    this.hint = options.hint;
  }
}
