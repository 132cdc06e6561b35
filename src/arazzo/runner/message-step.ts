// Arazzo 1.1 AsyncAPI steps: execute (send one message, or wait for one) through the injected
// MessageTransport; compile-message.ts compiles them (channel, messages, correlation).
// - send: payload from requestBody (JSON text for JSON content types, else as written), headers
//   from `in: header` parameters, the record key from the step's `x-kafka-key` (checked against
//   the message's Kafka `bindings.kafka.key` schema), channel address `{params}` from `in: path`
//   parameters. Payload (and headers) are validated against the message schema first: a mismatch
//   fails the step and nothing is sent. The step completes when the broker acknowledges.
// - receive: reads from where the channel ended when the run started (see run-workflow.ts) for
//   up to `timeout` ms (default 30 s); the first message whose correlation id (the message's
//   `correlationId.location`) equals the step's `correlationId` and that passes the step's
//   success criteria is the step's message (`$message.*`).
import type { Ajv, ValidateFunction } from 'ajv';
import { loadAjv } from '../_on-demand.js';
import type { ExpressionContext, ReceivedMessageView } from '../context.js';
import { ArazzoError } from '../errors.js';
import { evaluateCriterion, type CriterionResult } from '../criteria/index.js';
import { resolveJsonPointer } from '../expressions/index.js';
import type { MessageEndpoint, MessageTransport, StartPosition } from '../messaging.js';
import { parseCorrelationLocation, type AsyncApiMessage } from '../sources/index.js';
import { buildBody, bodyKind } from './request-body.js';
import type { CompiledStep } from './compile.js';
import { endpointOf } from './compile-message.js';
import type { RunState, StepResult } from './state.js';

export const DEFAULT_RECEIVE_TIMEOUT_MS = 30_000;

// ---------------------------------------------------------------------------------------------
// Schemas (AsyncAPI Schema Object ≈ JSON Schema draft-07), compiled once per schema object.

// ajv through the engine's one door for libraries loaded on first use (bundled in the package and the CLI).
let ajv: Ajv | undefined;
const validators = new WeakMap<object, ValidateFunction>();

function schemaErrors(schema: unknown, value: unknown): string | undefined {
  if (schema === null || typeof schema !== 'object') return undefined;
  let validate = validators.get(schema);
  if (!validate) {
    ajv ??= new (loadAjv() as { Ajv: typeof Ajv }).Ajv({ allErrors: true, strict: false, validateSchema: false });
    validate = ajv.compile(schema as object);
    validators.set(schema, validate);
  }
  if (validate(value)) return undefined;
  return (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`).join('; ');
}

/** The message the value fits, or why it fits none (every message of the channel is a candidate). */
function checkAgainstMessages(messages: AsyncApiMessage[], payload: unknown, headers: Record<string, string>): string | undefined {
  const withSchema = messages.filter((m) => m.payload !== undefined || m.headers !== undefined);
  if (withSchema.length === 0) return undefined;
  const problems: string[] = [];
  for (const m of withSchema) {
    const p = m.payload !== undefined ? schemaErrors(m.payload, payload) : undefined;
    const h = m.headers !== undefined ? schemaErrors(m.headers, headers) : undefined;
    if (p === undefined && h === undefined) return undefined;
    problems.push(`message "${m.name}": ${[p && `payload ${p}`, h && `headers ${h}`].filter(Boolean).join('; ')}`);
  }
  return problems.join(' | ');
}

// ---------------------------------------------------------------------------------------------

function transportOf(state: RunState, cs: CompiledStep): MessageTransport {
  if (!state.messages) throw new ArazzoError('E_SOURCE', `${cs.where} ${cs.message!.action}s a message, but this run has no message transport (the caller must provide one)`);
  return state.messages;
}

function fillAddress(cs: CompiledStep, ctx: ExpressionContext): string {
  const message = cs.message!;
  if (!message.address.includes('{')) return message.address;
  return message.address.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const p = cs.parameters.find((x) => x.in === 'path' && x.name === name);
    const v = p?.compiled(ctx);
    if (v === undefined) throw new ArazzoError('E_REQUEST', `${cs.where}: channel address "${message.address}" needs "${name}"; add {name: ${name}, in: path, value: ...} to the step's parameters`);
    return String(v);
  });
}

/** Combines the run's signal with the step's timeout; `timedOut()` tells the two apart. */
export function stepSignal(state: RunState, ms: number | undefined): { signal: AbortSignal | undefined; timedOut: () => boolean; dispose: () => void } {
  if (ms === undefined) return { signal: state.signal, timedOut: () => false, dispose: () => {} };
  const controller = new AbortController();
  let fired = false;
  const timer = setTimeout(() => {
    fired = true;
    controller.abort();
  }, ms);
  const onAbort = (): void => controller.abort();
  state.signal?.addEventListener('abort', onAbort, { once: true });
  if (state.signal?.aborted) controller.abort();
  return {
    signal: controller.signal,
    timedOut: () => fired,
    dispose: () => {
      clearTimeout(timer);
      state.signal?.removeEventListener('abort', onAbort);
    },
  };
}

export async function sendMessage(state: RunState, cs: CompiledStep, base: ExpressionContext, result: StepResult): Promise<ExpressionContext> {
  const message = cs.message!;
  const transport = transportOf(state, cs);
  const headers: Record<string, string> = {};
  for (const p of cs.parameters) {
    if (p.in !== 'header') continue;
    const v = p.compiled(base);
    if (v !== undefined) headers[p.name] = typeof v === 'string' ? v : JSON.stringify(v);
  }
  let payload: unknown;
  let text = '';
  if (cs.body) {
    const built = buildBody(cs.body, (_raw, compiled) => compiled(base), cs.where);
    payload = built.value;
    text = built.text;
  }
  const address = fillAddress(cs, base);
  result.message = { action: 'send', address };
  const mismatch = checkAgainstMessages(message.messages, bodyKind(message.contentType) === 'json' ? payload : text, headers);
  if (mismatch !== undefined) {
    result.error = { code: 'E_MESSAGE_SCHEMA', message: `${cs.where}: the message does not match the AsyncAPI schema, so nothing was sent: ${mismatch}` };
    return base;
  }
  const key = message.key?.(base);
  const keySchema = message.messages.find((m) => m.kafkaKey !== undefined)?.kafkaKey;
  if (key !== undefined && keySchema !== undefined) {
    const problem = schemaErrors(keySchema, key);
    if (problem) {
      result.error = { code: 'E_MESSAGE_SCHEMA', message: `${cs.where}: x-kafka-key does not match the message's bindings.kafka.key schema, so nothing was sent: ${problem}` };
      return base;
    }
  }
  const timer = stepSignal(state, cs.timeoutMs);
  try {
    const sending = transport.send(endpointOf(message, address), { ...(key !== undefined ? { key: typeof key === 'string' ? key : JSON.stringify(key) } : {}), value: Buffer.from(text, 'utf8'), headers }, timer.signal);
    // The step's timeout (or cancellation) stops the wait for the ack, whether or not the transport honours the signal.
    sending.catch(() => undefined); // a late failure after the timeout is not an unhandled rejection
    const ack = timer.signal ? await Promise.race([sending, aborted(timer.signal)]) : await sending;
    result.message = { action: 'send', address, partition: ack.partition, offset: ack.offset };
  } catch (err) {
    if (state.signal?.aborted) throw err;
    result.error = timer.timedOut()
      ? { code: 'E_TIMEOUT', message: `${cs.where}: the broker did not acknowledge the message within the step's timeout of ${cs.timeoutMs} ms` }
      : { code: 'E_MESSAGE', message: `${cs.where}: sending to ${address} failed: ${(err as Error).message}` };
  } finally {
    timer.dispose();
  }
  return base;
}

function decode(value: Buffer | undefined, contentType: string): unknown {
  if (value === undefined) return undefined;
  const text = value.toString('utf8');
  if (bodyKind(contentType) !== 'json') return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

export async function receiveMessage(state: RunState, cs: CompiledStep, base: ExpressionContext, result: StepResult, from: (endpoint: MessageEndpoint) => Promise<StartPosition>): Promise<ExpressionContext> {
  const message = cs.message!;
  const transport = transportOf(state, cs);
  const address = fillAddress(cs, base);
  result.message = { action: 'receive', address };
  const expected = message.correlationId?.(base);
  const locations = message.messages.map((m) => (m.correlationLocation ? parseCorrelationLocation(m.correlationLocation) : undefined)).filter((l) => l !== undefined);
  if (expected !== undefined && locations.length === 0) {
    result.error = { code: 'E_REQUEST', message: `${cs.where}: the step has a correlationId but no message of channel "${message.target.channel.key}" declares correlationId.location, so nothing can be matched` };
    return base;
  }
  const timeoutMs = cs.timeoutMs ?? DEFAULT_RECEIVE_TIMEOUT_MS;
  const timer = stepSignal(state, timeoutMs);
  let seen = 0;
  let correlated = 0;
  let lastFailure: CriterionResult[] = [];
  try {
    const endpoint = endpointOf(message, address);
    const start = await from(endpoint);
    for await (const record of transport.receive(endpoint, start, timer.signal!)) {
      seen += 1;
      const view: ReceivedMessageView = { headers: record.headers, payload: decode(record.value, message.contentType) };
      if (expected !== undefined) {
        const wanted = String(typeof expected === 'string' ? expected : JSON.stringify(expected));
        const matches = locations.some((l) => {
          const v = l.pointer === '' ? (l.in === 'header' ? view.headers : view.payload) : resolveJsonPointer(l.in === 'header' ? view.headers : view.payload, l.pointer);
          return v !== undefined && String(v) === wanted;
        });
        if (!matches) continue;
      }
      correlated += 1;
      const ctx: ExpressionContext = { ...base, message: view };
      const failed = cs.successCriteria.map((c) => evaluateCriterion(c, ctx, true)).filter((r) => !r.passed);
      if (failed.length > 0) {
        lastFailure = failed;
        continue;
      }
      result.message = { action: 'receive', address, partition: record.partition, offset: record.offset };
      return ctx;
    }
  } catch (err) {
    if (state.signal?.aborted) throw err;
    if (!timer.timedOut()) {
      result.error = { code: 'E_MESSAGE', message: `${cs.where}: receiving from ${address} failed: ${(err as Error).message}` };
      return base;
    }
  } finally {
    timer.dispose();
  }
  if (state.signal?.aborted) return base;
  const why = expected !== undefined ? `, ${correlated} with correlation id ${JSON.stringify(expected)}` : '';
  const criteria = lastFailure.length > 0 ? `; the last one failed: ${lastFailure.map((c) => c.message ?? c.condition).join('; ')}` : '';
  result.error = { code: 'E_TIMEOUT', message: `${cs.where}: no matching message on ${address} within ${timeoutMs} ms (read ${seen} message${seen === 1 ? '' : 's'} since the run started${why})${criteria}` };
  return base;
}

function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    const fail = (): void => reject(new Error('aborted'));
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
}
