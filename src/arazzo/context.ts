// What runtime expressions and criteria can see. The runner builds a fresh, read-only context
// for every evaluation instead of threading one mutable object through everything.

/** One HTTP request/response pair, as the expressions `$url $method $statusCode $request.* $response.*` see it. */
export interface HttpExchange {
  url: string;
  method: string;
  request: {
    /** Header names as sent; look-ups are case-insensitive. */
    headers: Record<string, string>;
    query: Record<string, string | string[]>;
    path: Record<string, unknown>;
    body?: unknown;
  };
  response?: {
    statusCode: number;
    /** Header names as received; look-ups are case-insensitive. */
    headers: Record<string, string | string[]>;
    /** Parsed body: JSON value for JSON media types, otherwise the text. */
    body?: unknown;
    /** The body as text, for regex and xpath criteria. */
    text?: string;
    contentType?: string;
  };
}

export interface ExpressionContext {
  inputs: Readonly<Record<string, unknown>>;
  /** The current workflow's outputs evaluated so far. */
  outputs: Readonly<Record<string, unknown>>;
  steps: Readonly<Record<string, { outputs: Readonly<Record<string, unknown>> }>>;
  workflows: Readonly<Record<string, { inputs?: Readonly<Record<string, unknown>>; outputs: Readonly<Record<string, unknown>> }>>;
  /** Source descriptions by name: the document's object (`name`, `url`, `type`). */
  sourceDescriptions: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** The document's `components` object. */
  components: Readonly<Record<string, unknown>>;
  /** The current step's exchange, when there is one. */
  exchange?: HttpExchange;
  /** Arazzo 1.1 receive steps: the message being checked or the one that matched. */
  message?: ReceivedMessageView;
  /** Arazzo 1.1 `$self`: the document's base URI. */
  self?: string;
}

/** A received message as `$message.header.<name>` and `$message.payload#/...` see it. */
export interface ReceivedMessageView {
  headers: Record<string, string>;
  payload: unknown;
}

export function emptyContext(): ExpressionContext {
  return { inputs: {}, outputs: {}, steps: {}, workflows: {}, sourceDescriptions: {}, components: {} };
}
