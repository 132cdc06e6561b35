// AsyncAPI 3.0 source descriptions (Arazzo 1.1): operations, channels, messages and servers with
// local `$ref`s resolved. The engine reads what a send or receive step needs: the channel's
// address (for Kafka, the topic), the messages with their schemas, content type, correlation-id
// location and Kafka bindings, and the servers that carry the channel.
import type { LoadedDocument } from '../document/index.js';
import { ArazzoError } from '../errors.js';
import { followPointer, isRecord, resolveRef, unescapeToken } from './openapi-source.js';

export interface AsyncApiMessage {
  /** Key under the channel's `messages` (or the component name). */
  name: string;
  contentType: string;
  payload?: unknown;
  headers?: unknown;
  /** e.g. `$message.header#/orderRequestId`. */
  correlationLocation?: string;
  /** `bindings.kafka.key`: the schema of the record key. */
  kafkaKey?: unknown;
}

export interface AsyncApiChannel {
  key: string;
  address: string;
  messages: AsyncApiMessage[];
  /** Server names the channel is available on (all servers when the channel names none). */
  servers: string[];
}

export interface AsyncApiOperation {
  id: string;
  /** The described application's side. */
  action: 'send' | 'receive';
  channel: AsyncApiChannel;
  messages: AsyncApiMessage[];
  reply?: { channel: AsyncApiChannel; messages: AsyncApiMessage[] };
}

export interface AsyncApiServer {
  name: string;
  host: string;
  protocol: string;
}

export interface AsyncApiSource {
  name: string;
  location: string;
  doc: LoadedDocument;
  version: string;
  operations: Map<string, AsyncApiOperation>;
  channels: Map<string, AsyncApiChannel>;
  servers: AsyncApiServer[];
  defaultContentType: string;
}

export function createAsyncApiSource(name: string, location: string, doc: LoadedDocument): AsyncApiSource {
  const root = doc.value as Record<string, unknown>;
  const version = String(root['asyncapi']);
  if (!/^3\.0\.\d+$/.test(version)) {
    throw new ArazzoError('E_SOURCE', `source "${name}" (${location}) is AsyncAPI ${version}; offsetctl reads AsyncAPI 3.0.x descriptions (convert it, e.g. with the AsyncAPI CLI's \`asyncapi convert\`)`);
  }
  const defaultContentType = typeof root['defaultContentType'] === 'string' ? root['defaultContentType'] : 'application/json';
  const servers: AsyncApiServer[] = [];
  for (const [serverName, raw] of Object.entries(isRecord(root['servers']) ? root['servers'] : {})) {
    const server = resolveRef(root, raw, name);
    servers.push({ name: serverName, host: String(server['host'] ?? ''), protocol: String(server['protocol'] ?? '') });
  }
  const channels = new Map<string, AsyncApiChannel>();
  const channelOf = (raw: unknown): AsyncApiChannel => {
    const ref = isRecord(raw) && typeof raw['$ref'] === 'string' ? raw['$ref'] : undefined;
    const key = ref?.startsWith('#/channels/') ? unescapeToken(ref.slice('#/channels/'.length)) : undefined;
    if (key !== undefined && channels.has(key)) return channels.get(key)!;
    const channel = readChannel(root, name, key ?? '(inline)', resolveRef(root, raw, name), defaultContentType, servers);
    if (key !== undefined) channels.set(key, channel);
    return channel;
  };
  for (const key of Object.keys(isRecord(root['channels']) ? root['channels'] : {})) channelOf({ $ref: `#/channels/${key.replace(/~/g, '~0').replace(/\//g, '~1')}` });
  const operations = new Map<string, AsyncApiOperation>();
  for (const [id, raw] of Object.entries(isRecord(root['operations']) ? root['operations'] : {})) {
    const op = resolveRef(root, raw, name);
    const action = op['action'];
    if (action !== 'send' && action !== 'receive') throw new ArazzoError('E_SOURCE', `source "${name}": operation "${id}" needs action: send or receive`);
    const channel = channelOf(op['channel']);
    const messages = Array.isArray(op['messages']) && op['messages'].length > 0 ? op['messages'].map((m) => readMessage(root, name, m, defaultContentType)) : channel.messages;
    const operation: AsyncApiOperation = { id, action, channel, messages };
    if (isRecord(op['reply'])) {
      const reply = resolveRef(root, op['reply'], name);
      const replyChannel = reply['channel'] !== undefined ? channelOf(reply['channel']) : undefined;
      if (replyChannel) {
        const replyMessages = Array.isArray(reply['messages']) && reply['messages'].length > 0 ? reply['messages'].map((m) => readMessage(root, name, m, defaultContentType)) : replyChannel.messages;
        operation.reply = { channel: replyChannel, messages: replyMessages };
      }
    }
    operations.set(id, operation);
  }
  return { name, location, doc, version, operations, channels, servers, defaultContentType };
}

function readChannel(root: unknown, source: string, key: string, channel: Record<string, unknown>, contentType: string, servers: AsyncApiServer[]): AsyncApiChannel {
  const address = typeof channel['address'] === 'string' ? channel['address'] : key;
  const messages = Object.entries(isRecord(channel['messages']) ? channel['messages'] : {}).map(([messageName, m]) => ({ ...readMessage(root, source, m, contentType), name: messageName }));
  const named = Array.isArray(channel['servers'])
    ? channel['servers'].map((s) => (isRecord(s) && typeof s['$ref'] === 'string' ? unescapeToken(s['$ref'].replace(/^#\/servers\//, '')) : '')).filter((s) => s !== '')
    : servers.map((s) => s.name);
  return { key, address, messages, servers: named };
}

function readMessage(root: unknown, source: string, raw: unknown, defaultContentType: string): AsyncApiMessage {
  const ref = isRecord(raw) && typeof raw['$ref'] === 'string' ? raw['$ref'] : '';
  const message = resolveRef(root, raw, source);
  const name = ref.split('/').pop() ?? 'message';
  const out: AsyncApiMessage = { name: unescapeToken(name), contentType: typeof message['contentType'] === 'string' ? message['contentType'] : defaultContentType };
  if (message['payload'] !== undefined) out.payload = derefSchema(root, message['payload'], source);
  if (message['headers'] !== undefined) out.headers = derefSchema(root, message['headers'], source);
  const correlation = message['correlationId'] !== undefined ? resolveRef(root, message['correlationId'], source) : undefined;
  if (typeof correlation?.['location'] === 'string') out.correlationLocation = correlation['location'];
  const bindings = message['bindings'] !== undefined ? resolveRef(root, message['bindings'], source) : undefined;
  const kafka = isRecord(bindings?.['kafka']) ? bindings['kafka'] : undefined;
  if (kafka?.['key'] !== undefined) out.kafkaKey = derefSchema(root, kafka['key'], source);
  return out;
}

/** A schema with its local `$ref`s inlined (depth-limited), so ajv can compile it on its own. */
function derefSchema(root: unknown, schema: unknown, source: string, depth = 0): unknown {
  if (depth > 32) throw new ArazzoError('E_SOURCE', `source "${source}": schema nesting or $ref chain too deep`);
  if (Array.isArray(schema)) return schema.map((s) => derefSchema(root, s, source, depth + 1));
  if (!isRecord(schema)) return schema;
  if (typeof schema['$ref'] === 'string') {
    const ref = schema['$ref'];
    if (!ref.startsWith('#')) throw new ArazzoError('E_SOURCE', `source "${source}": $ref "${ref}" points into another file; bundle the AsyncAPI description into one file`);
    const target = followPointer(root, ref.slice(1));
    if (target === undefined) throw new ArazzoError('E_SOURCE', `source "${source}": $ref "${ref}" points at nothing; fix the description`);
    return derefSchema(root, target, source, depth + 1);
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) out[k] = derefSchema(root, v, source, depth + 1);
  return out;
}

/** `$message.header#/x` or `$message.payload#/x` (AsyncAPI runtime expression) → where and pointer. */
export function parseCorrelationLocation(location: string): { in: 'header' | 'payload'; pointer: string } | undefined {
  const m = /^\$message\.(header|payload)(?:#(.*))?$/.exec(location);
  return m ? { in: m[1] as 'header' | 'payload', pointer: m[2] ?? '' } : undefined;
}
