// From an Arazzo 1.1 AsyncAPI step (operationId / operationPath / channelPath + action) to the
// channel, messages and server it sends to or receives from. Direction: an AsyncAPI operation's
// `action` is the described application's side, a step's `action` the workflow's. A workflow
// sends what the application receives and receives what the application sends; a step that
// receives on an operation the application receives reads that operation's reply channel.
import { ArazzoError } from '../errors.js';
import { CHANNEL_PATH } from '../document/index.js';
import type { AsyncApiChannel, AsyncApiMessage, AsyncApiOperation, AsyncApiSource, AsyncApiServer } from './asyncapi-source.js';
import { unescapeToken } from './openapi-source.js';

export interface MessageTarget {
  sourceName: string;
  action: 'send' | 'receive';
  operationId?: string;
  channel: AsyncApiChannel;
  messages: AsyncApiMessage[];
  server: AsyncApiServer;
  /** Bootstrap servers: `--server <source>=<host:port,...>` else the AsyncAPI server's host. */
  bootstrap: string[];
}

export interface MessageStepTarget {
  operationId?: string;
  operationPath?: string;
  channelPath?: string;
  action?: string;
}

const KAFKA_PROTOCOLS = ['kafka', 'kafka-secure'];

export function findMessageTarget(sources: ReadonlyMap<string, AsyncApiSource>, step: MessageStepTarget, servers: Record<string, string>): MessageTarget {
  const action = step.action;
  if (action !== 'send' && action !== 'receive') throw new ArazzoError('E_OPERATION', 'an AsyncAPI step needs action: send or receive');
  let source: AsyncApiSource;
  let channel: AsyncApiChannel;
  let messages: AsyncApiMessage[];
  let operationId: string | undefined;
  if (step.channelPath !== undefined) {
    const m = CHANNEL_PATH.exec(step.channelPath);
    if (!m) throw new ArazzoError('E_OPERATION', `channelPath "${step.channelPath}" must look like {$sourceDescriptions.<name>.url}#/channels/<channel>`);
    source = sourceNamed(sources, m[1]!, step.channelPath);
    const key = unescapeToken(safeDecode(m[2]!.slice('/channels/'.length)));
    const found = source.channels.get(key);
    if (!found) throw new ArazzoError('E_OPERATION', `channelPath "${step.channelPath}": source "${source.name}" has no channel "${key}" (channels: ${[...source.channels.keys()].join(', ') || 'none'})`);
    channel = found;
    messages = found.messages;
  } else {
    const { source: s, operation } = findAsyncOperation(sources, step);
    source = s;
    operationId = operation.id;
    ({ channel, messages } = directed(operation, action, source));
  }
  const server = pickServer(source, channel);
  const override = servers[source.name];
  const bootstrap = (override ?? server.host).split(',').map((h) => h.trim()).filter((h) => h !== '');
  const target: MessageTarget = { sourceName: source.name, action, channel, messages, server, bootstrap };
  if (operationId !== undefined) target.operationId = operationId;
  return target;
}

/** The channel a step with this action uses on this operation, or a validation error with the fix. */
function directed(operation: AsyncApiOperation, action: 'send' | 'receive', source: AsyncApiSource): { channel: AsyncApiChannel; messages: AsyncApiMessage[] } {
  if (action === 'send' && operation.action === 'receive') return { channel: operation.channel, messages: operation.messages };
  if (action === 'receive' && operation.action === 'send') return { channel: operation.channel, messages: operation.messages };
  if (action === 'receive' && operation.reply) return { channel: operation.reply.channel, messages: operation.reply.messages };
  const opposite = action === 'send' ? 'receive' : 'send';
  throw new ArazzoError(
    'E_OPERATION',
    `a step that ${action}s cannot use operation "${operation.id}" of source "${source.name}": it is declared action: ${operation.action}, the application's side, so the application ${operation.action}s there too. A workflow ${action}s to operations the application ${opposite}s${action === 'receive' ? ' (or to the reply of an operation it receives)' : ''}; use action: ${opposite}, another operation, or channelPath`,
  );
}

function findAsyncOperation(sources: ReadonlyMap<string, AsyncApiSource>, step: MessageStepTarget): { source: AsyncApiSource; operation: AsyncApiOperation } {
  // `$sourceDescriptions.<name>.<operationId>` in operationPath (the spec's own example does this) is
  // refused by validation with its fix; resolving it as the id it names reports everything else too.
  if (step.operationPath !== undefined && /^\$sourceDescriptions\.[^.]+\.[^#]+$/.test(step.operationPath) && !step.operationPath.endsWith('.url')) {
    return findAsyncOperation(sources, { operationId: step.operationPath });
  }
  if (step.operationPath !== undefined) {
    const m = /^\{?\$sourceDescriptions\.([^.}]+)\.url\}?#\/operations\/(.+)$/.exec(step.operationPath);
    if (!m) throw new ArazzoError('E_OPERATION', `operationPath "${step.operationPath}" must point at an AsyncAPI operation as {$sourceDescriptions.<name>.url}#/operations/<operationId>`);
    const source = sourceNamed(sources, m[1]!, step.operationPath);
    return { source, operation: operationIn(source, unescapeToken(safeDecode(m[2]!))) };
  }
  if (step.operationId === undefined) {
    throw new ArazzoError('E_OPERATION', `a step with action: ${step.action ?? 'send'} needs the AsyncAPI operation or channel it ${step.action === 'receive' ? 'receives from' : 'sends to'}: add operationId, operationPath or channelPath`);
  }
  const id = step.operationId;
  const qualified = /^\$sourceDescriptions\.([^.]+)\.(.+)$/.exec(id);
  if (qualified) {
    const source = sourceNamed(sources, qualified[1]!, id);
    return { source, operation: operationIn(source, qualified[2]!) };
  }
  const hits = [...sources.values()].filter((s) => s.operations.has(id));
  if (hits.length === 0) throw new ArazzoError('E_OPERATION', `operationId "${id}" is not an operation of any AsyncAPI source (${[...sources.keys()].join(', ') || 'none'})${replyHint(sources, id)}`);
  if (hits.length > 1) throw new ArazzoError('E_OPERATION', `operationId "${id}" exists in more than one AsyncAPI source (${hits.map((s) => s.name).join(', ')}); qualify it as $sourceDescriptions.<name>.${id}`);
  return { source: hits[0]!, operation: hits[0]!.operations.get(id)! };
}

function operationIn(source: AsyncApiSource, id: string): AsyncApiOperation {
  const operation = source.operations.get(id);
  if (!operation) {
    throw new ArazzoError('E_OPERATION', `source "${source.name}" (${source.location}) has no operation "${id}" (operations: ${[...source.operations.keys()].join(', ') || 'none'})${replyHint(new Map([[source.name, source]]), id)}`);
  }
  return operation;
}

/** The spec's own example receives on `confirmOrder`, which exists only as the reply of `placeOrder`. */
function replyHint(sources: ReadonlyMap<string, AsyncApiSource>, id: string): string {
  for (const source of sources.values()) {
    for (const op of source.operations.values()) {
      const reply = op.reply;
      if (!reply) continue;
      const names = [reply.channel.key, ...reply.messages.map((m) => m.name), ...reply.channel.messages.map((m) => m.name)];
      if (names.some((n) => n === id || n.split('.')[0] === id || n.startsWith(`${id}.`))) {
        return `; "${id}" is only the reply of operation "${op.id}": receive it with operationId: $sourceDescriptions.${source.name}.${op.id} and action: receive (a receive on an operation the application receives reads its reply), or with channelPath: '{$sourceDescriptions.${source.name}.url}#/channels/${reply.channel.key}'`;
      }
    }
  }
  return '';
}

function sourceNamed(sources: ReadonlyMap<string, AsyncApiSource>, name: string, text: string): AsyncApiSource {
  const source = sources.get(name);
  if (!source) throw new ArazzoError('E_OPERATION', `"${text}" names source "${name}", which is not an AsyncAPI source of this document (${[...sources.keys()].join(', ') || 'none'})`);
  return source;
}

function pickServer(source: AsyncApiSource, channel: AsyncApiChannel): AsyncApiServer {
  const candidates = source.servers.filter((s) => channel.servers.includes(s.name));
  const kafka = candidates.find((s) => KAFKA_PROTOCOLS.includes(s.protocol));
  if (kafka) return kafka;
  const protocols = candidates.map((s) => `${s.name} (${s.protocol})`).join(', ');
  throw new ArazzoError('E_SOURCE', `source "${source.name}": channel "${channel.key}" has no Kafka server (protocol kafka or kafka-secure)${protocols ? `; it has ${protocols}` : ''}; offsetctl sends and receives over Kafka`);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
