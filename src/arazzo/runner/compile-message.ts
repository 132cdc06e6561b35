// Arazzo 1.1 AsyncAPI steps, compiled once per step: the channel and its messages, the address,
// content type, correlation id and record key (message-step.ts runs them), and the endpoint a
// step sends to or receives from.
import { ArazzoError } from '../errors.js';
import type { MessageEndpoint } from '../messaging.js';
import type { AsyncApiMessage, MessageTarget, SourceRegistry } from '../sources/index.js';
import type { Step } from '../types.js';
import { compileValue, type CompiledValue } from './compile-value.js';

export interface CompiledMessageStep {
  action: 'send' | 'receive';
  target: MessageTarget;
  /** The channel address; `{name}` parts are filled from `in: path` parameters. */
  address: string;
  contentType: string;
  messages: AsyncApiMessage[];
  correlationId?: CompiledValue;
  key?: CompiledValue;
}

export function compileMessageStep(registry: SourceRegistry, step: Step, where: string): CompiledMessageStep | undefined {
  if (step.action === undefined && step.channelPath === undefined) return undefined;
  let target: MessageTarget;
  try {
    target = registry.resolveMessage(step);
  } catch (err) {
    const e = err as ArazzoError;
    throw new ArazzoError(e.code === 'E_OPERATION' ? 'E_OPERATION' : 'E_SOURCE', `${where}: ${e.message}`, { ...(e.hint ? { hint: e.hint } : {}), cause: err });
  }
  const compiled: CompiledMessageStep = {
    action: target.action,
    target,
    address: target.channel.address,
    contentType: step.requestBody?.contentType ?? target.messages[0]?.contentType ?? 'application/json',
    messages: target.messages,
  };
  if (step.correlationId !== undefined) compiled.correlationId = compileValue(step.correlationId, true);
  const key = (step as unknown as Record<string, unknown>)['x-kafka-key'];
  if (key !== undefined) compiled.key = compileValue(key, true);
  return compiled;
}

/** The endpoint a step uses, with `{param}`s of the address filled in. */
export function endpointOf(message: CompiledMessageStep, address = message.address): MessageEndpoint {
  const t = message.target;
  return { source: t.sourceName, server: t.server.name, protocol: t.server.protocol, bootstrap: t.bootstrap, address };
}

export function endpointKey(e: MessageEndpoint): string {
  return `${e.bootstrap.join(',')}\u0000${e.address}`;
}
