// The message transport an Arazzo 1.1 AsyncAPI step uses, injected by the caller like the
// HttpSender: the engine knows channels, payloads and correlation, never a concrete client.
// offsetctl's Kafka implementation is src/kafka/messaging.ts.

/** Where a step sends or receives: a channel address on a server (for Kafka, a topic on a cluster). */
export interface MessageEndpoint {
  /** Source description name (what `--server <name>=...` overrides). */
  source: string;
  /** AsyncAPI server name and protocol (`kafka`, `kafka-secure`). */
  server: string;
  protocol: string;
  /** Bootstrap `host:port` entries. */
  bootstrap: string[];
  /** Channel address: the topic. */
  address: string;
}

export interface OutgoingMessage {
  key?: string;
  value: Buffer;
  headers: Record<string, string>;
}

export interface IncomingMessage {
  partition: number;
  offset: string;
  key?: Buffer;
  value?: Buffer;
  headers: Record<string, string>;
  timestamp?: string;
}

/** Where a channel ended when it was marked; opaque to the engine. */
export type StartPosition = unknown;

export interface MessageTransport {
  /** Records where the channel ends now: a later receive reads from there, so nothing sent after is missed. */
  mark(endpoint: MessageEndpoint): Promise<StartPosition>;
  /** Sends one message; resolves when the broker acknowledged it. */
  send(endpoint: MessageEndpoint, message: OutgoingMessage, signal?: AbortSignal): Promise<{ partition: number; offset: string }>;
  /**
   * Messages on the channel from `from` onwards, as they arrive, until the signal aborts (the
   * iteration then ends without an error). Leaves no trace on the server (no committed offsets).
   */
  receive(endpoint: MessageEndpoint, from: StartPosition, signal: AbortSignal): AsyncIterable<IncomingMessage>;
  close(): Promise<void>;
}
