// Loading every sourceDescription of an Arazzo document: OpenAPI descriptions and other Arazzo
// documents (recursively, each file loaded once, so cycles between documents are harmless).

import { dirname, resolve as resolvePath } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { assertValid, isArazzo11, loadDocumentFile, parseDocumentText, validateArazzo, type DocumentCache, type LoadedDocument, type ParseOptions } from '../document/index.js';
import { ArazzoError, type Diagnostic } from '../errors.js';
import type { Workflow } from '../types.js';
import { createOpenApiSource, isRecord, type OpenApiSource } from './openapi-source.js';
import { checkRegistryOperations } from './check-operations.js';
import { describeResolved, findOperation, type OperationTarget, type ResolvedOperation } from './resolve-operation.js';
import { selectServer, type ServerOverrides } from './servers.js';
import { createAsyncApiSource, type AsyncApiSource } from './asyncapi-source.js';
import { findMessageTarget, type MessageStepTarget, type MessageTarget } from './resolve-message.js';

export interface SourceOptions {
  /** `--source name=path-or-url`: replaces a sourceDescription's url (at every level of nested Arazzo sources). */
  overrides?: Record<string, string>;
  /** Allow http(s) sources. Off by default: a document must not make the tool fetch things on its own. */
  allowRemote?: boolean;
  servers?: ServerOverrides;
  /** Fetches http(s) sources when allowRemote (default: global fetch). */
  fetchText?: (url: string) => Promise<string>;
  /** Directory that relative `overrides` paths are resolved against (default: the process's cwd). */
  baseDir?: string;
  /** Where parsed source descriptions are kept between runs (default: the cache `doc` was read through). */
  cache?: DocumentCache;
}

export interface ArazzoSource {
  name: string;
  doc: LoadedDocument;
  sources: SourceRegistry;
}

export interface SourceRegistry {
  doc: LoadedDocument;
  openapi: ReadonlyMap<string, OpenApiSource>;
  arazzo: ReadonlyMap<string, ArazzoSource>;
  /** Arazzo 1.1: AsyncAPI 3.0 sources by name. */
  asyncapi: ReadonlyMap<string, AsyncApiSource>;
  /** Arazzo 1.1: the document's base URI (`$self` resolved against where it was read from). */
  baseUri: string;
  /** 1.1 AsyncAPI step → channel, messages, Kafka server. Throws E_OPERATION / E_SOURCE. */
  resolveMessage(step: MessageStepTarget): MessageTarget;
  /** Throws E_OPERATION (not found, ambiguous) or E_REQUEST (no usable server). */
  resolveOperation(step: OperationTarget): ResolvedOperation;
  /** A bare workflowId of this document, or `$sourceDescriptions.<name>.<workflowId>`. */
  findWorkflow(ref: string): { workflow: Workflow; registry: SourceRegistry } | undefined;
  /** Every step's operation resolvable and unambiguous, here and in nested Arazzo sources. */
  checkOperations(): Diagnostic[];
}

interface LoadContext {
  opts: SourceOptions;
  /** Arazzo registries by location: a document reached twice (or in a cycle) is loaded once. */
  registries: Map<string, _Registry>;
  documents: Map<string, Promise<LoadedDocument>>;
  parse: ParseOptions;
}

/**
 * Load the sourceDescriptions of a validated Arazzo document.
 *
 * @example
 * const sources = await loadSources(doc, { overrides: { connectorsApi: './openapi/connect.yaml' } });
 * sources.resolveOperation({ operationId: 'stopConnector' }).serverUrl;
 */
export async function loadSources(doc: LoadedDocument, opts: SourceOptions = {}): Promise<SourceRegistry> {
  const cache = opts.cache ?? doc.cache;
  const ctx: LoadContext = { opts, registries: new Map(), documents: new Map(), parse: cache === undefined ? {} : { cache } };
  const registry = await loadRegistry(doc, ctx);
  checkNamesExist(ctx, opts);
  return registry;
}

async function loadRegistry(doc: LoadedDocument, ctx: LoadContext): Promise<_Registry> {
  const registry = new _Registry(doc, ctx.opts.servers ?? {});
  ctx.registries.set(doc.file, registry);
  const declared = isRecord(doc.value) && Array.isArray(doc.value['sourceDescriptions']) ? doc.value['sourceDescriptions'] : [];
  for (const entry of declared) {
    if (!isRecord(entry) || typeof entry['name'] !== 'string' || typeof entry['url'] !== 'string') continue;
    const name = entry['name'];
    const location = locate(doc, name, entry['url'], ctx.opts);
    const loaded = await readSource(name, location, ctx);
    const kind = detectKind(loaded.value);
    const declaredType = entry['type'];
    if (declaredType !== undefined && kind !== declaredType) {
      throw new ArazzoError('E_SOURCE', `source "${name}" is declared as type ${String(declaredType)} but ${location} is ${kind === 'unknown' ? 'neither OpenAPI, AsyncAPI nor Arazzo' : `an ${kind} document`}; fix the type or map the source to another description`, { hint: { kind: 'map-source', source: name } });
    }
    if (kind === 'asyncapi') {
      if (!isArazzo11(doc.value)) throw new ArazzoError('E_SOURCE', `source "${name}" (${location}) is an AsyncAPI description, which Arazzo 1.0 documents cannot use; set the document's \`arazzo: 1.1.0\` (\`offsetctl workflow upgrade ${doc.file}\` does it, keeping comments)`);
      registry.asyncapiSources.set(name, createAsyncApiSource(name, location, loaded));
    } else if (kind === 'openapi') {
      registry.openapiSources.set(name, createOpenApiSource(name, location, loaded));
    } else if (kind === 'arazzo') {
      const nested = ctx.registries.get(loaded.file) ?? (await loadArazzoSource(name, loaded, ctx));
      registry.arazzoSources.set(name, { name, doc: loaded, sources: nested });
    } else {
      const hint = isRecord(loaded.value) && 'swagger' in loaded.value ? ' (Swagger 2.0 is not supported: convert it to OpenAPI 3)' : '';
      throw new ArazzoError('E_SOURCE', `source "${name}" (${location}) is neither an OpenAPI 3.x nor an Arazzo document${hint}`);
    }
  }
  return registry;
}

async function loadArazzoSource(name: string, doc: LoadedDocument, ctx: LoadContext): Promise<_Registry> {
  const diagnostics = validateArazzo(doc);
  try {
    assertValid(doc, diagnostics);
  } catch (err) {
    const e = err as ArazzoError;
    throw new ArazzoError('E_SOURCE', `source "${name}" is not a valid Arazzo document: ${e.message}`, { location: e.location, diagnostics, cause: err });
  }
  return loadRegistry(doc, ctx);
}

function detectKind(value: unknown): 'openapi' | 'arazzo' | 'asyncapi' | 'unknown' {
  if (!isRecord(value)) return 'unknown';
  if (typeof value['openapi'] === 'string') return 'openapi';
  if (typeof value['asyncapi'] === 'string') return 'asyncapi';
  if (typeof value['arazzo'] === 'string') return 'arazzo';
  return 'unknown';
}

/** Absolute path or URL of a source: an override wins (relative to baseDir), else the url relative to the document. */
function locate(doc: LoadedDocument, name: string, url: string, opts: SourceOptions): string {
  const override = opts.overrides?.[name];
  if (override !== undefined) {
    if (/^https?:/i.test(override)) return override;
    if (/^file:/i.test(override)) return fileURLToPath(override);
    return resolvePath(opts.baseDir ?? process.cwd(), override);
  }
  if (/^https?:/i.test(url)) return url;
  if (/^file:/i.test(url)) return fileURLToPath(url);
  if (isArazzo11(doc.value)) {
    // 1.1 (RFC 3986 §5.2, Appendix B): relative URLs resolve against $self, itself resolved against the retrieval URI.
    const resolved = new URL(url, baseUriOf(doc)).href;
    return /^file:/i.test(resolved) ? fileURLToPath(resolved) : resolved;
  }
  if (/^https?:/i.test(doc.file)) return new URL(url, doc.file).href;
  return resolvePath(dirname(doc.file), safeDecode(url));
}

/** Where a document was read from, as a URI (a local path becomes a file: URL). */
function retrievalUri(doc: LoadedDocument): string {
  return /^https?:/i.test(doc.file) ? doc.file : pathToFileURL(doc.file).href;
}

/** Arazzo 1.1 base URI: `$self` (resolved against the retrieval URI when relative), else the retrieval URI. */
export function baseUriOf(doc: LoadedDocument): string {
  const self = isRecord(doc.value) ? doc.value['$self'] : undefined;
  const retrieval = retrievalUri(doc);
  return typeof self === 'string' && self !== '' && isArazzo11(doc.value) ? new URL(self, retrieval).href : retrieval;
}

async function readSource(name: string, location: string, ctx: LoadContext): Promise<LoadedDocument> {
  let pending = ctx.documents.get(location);
  if (!pending) {
    pending = /^https?:/i.test(location) ? fetchSource(name, location, ctx) : readLocalSource(name, location, ctx.parse);
    ctx.documents.set(location, pending);
  }
  return pending;
}

async function readLocalSource(name: string, location: string, parse: ParseOptions): Promise<LoadedDocument> {
  try {
    return await loadDocumentFile(location, parse);
  } catch (err) {
    const e = err as ArazzoError;
    if (e.code === 'E_DOCUMENT_READ') {
      throw new ArazzoError('E_SOURCE', `source "${name}": cannot read ${location} (${e.message.replace(/^cannot read [^:]*: /, '').replace(/; check the path$/, '')}); map the source to a local description`, {
        hint: { kind: 'map-source', source: name },
        location: { file: location },
        cause: err,
      });
    }
    throw new ArazzoError('E_SOURCE', `source "${name}": ${e.message}`, { location: e.location, cause: err });
  }
}

async function fetchSource(name: string, url: string, { opts, parse }: LoadContext): Promise<LoadedDocument> {
  if (!opts.allowRemote) {
    throw new ArazzoError('E_SOURCE', `source "${name}" is remote (${url}); allow remote sources to fetch it, or map the source to a local description`, { hint: { kind: 'allow-remote', source: name } });
  }
  let text: string;
  try {
    text = await (opts.fetchText ?? defaultFetchText)(url);
  } catch (err) {
    throw new ArazzoError('E_SOURCE', `source "${name}": fetching ${url} failed: ${(err as Error).message}; check the URL or map the source to a local description`, { hint: { kind: 'map-source', source: name }, cause: err });
  }
  try {
    return parseDocumentText(text, url, parse);
  } catch (err) {
    const e = err as ArazzoError;
    throw new ArazzoError('E_SOURCE', `source "${name}": ${e.message}`, { location: e.location, cause: err });
  }
}

async function defaultFetchText(url: string): Promise<string> {
  const response = await fetch(url, { redirect: 'follow', signal: AbortSignal.timeout(30_000) });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return response.text();
}

/** A source mapping or server override whose name matches no source is a typo: say so before anything runs. */
function checkNamesExist(ctx: LoadContext, opts: SourceOptions): void {
  const all = new Set<string>();
  const openapi = new Set<string>();
  for (const registry of ctx.registries.values()) {
    for (const name of registry.openapiSources.keys()) { all.add(name); openapi.add(name); }
    for (const name of registry.asyncapiSources.keys()) { all.add(name); openapi.add(name); }
    for (const name of registry.arazzoSources.keys()) all.add(name);
  }
  for (const name of Object.keys(opts.overrides ?? {})) {
    if (!all.has(name)) throw new ArazzoError('E_SOURCE', `the source mapping "${name}" names no sourceDescription; the names are: ${[...all].join(', ') || 'none'}`, { hint: { kind: 'unknown-source-name', given: 'map', name } });
  }
  for (const name of Object.keys(opts.servers?.byName ?? {})) {
    if (!openapi.has(name)) throw new ArazzoError('E_SOURCE', `the server given for "${name}" names no OpenAPI or AsyncAPI sourceDescription; the names are: ${[...openapi].join(', ') || 'none'}`, { hint: { kind: 'unknown-source-name', given: 'server', name } });
  }
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

class _Registry implements SourceRegistry {
  readonly openapiSources = new Map<string, OpenApiSource>();
  readonly arazzoSources = new Map<string, ArazzoSource>();
  readonly asyncapiSources = new Map<string, AsyncApiSource>();

  constructor(
    readonly doc: LoadedDocument,
    private readonly servers: ServerOverrides,
  ) {}

  get openapi(): ReadonlyMap<string, OpenApiSource> {
    return this.openapiSources;
  }

  get arazzo(): ReadonlyMap<string, ArazzoSource> {
    return this.arazzoSources;
  }

  get asyncapi(): ReadonlyMap<string, AsyncApiSource> {
    return this.asyncapiSources;
  }

  get baseUri(): string {
    return baseUriOf(this.doc);
  }

  resolveMessage(step: MessageStepTarget): MessageTarget {
    return findMessageTarget(this.asyncapiSources, step, this.servers.byName ?? {});
  }

  resolveOperation(step: OperationTarget): ResolvedOperation {
    const { source, operation } = findOperation(this.openapiSources, step);
    return describeResolved(source, operation, selectServer(source, operation, this.servers));
  }

  findWorkflow(ref: string): { workflow: Workflow; registry: SourceRegistry } | undefined {
    const qualified = /^\$sourceDescriptions\.([^.]+)\.(.+)$/.exec(ref);
    if (qualified) {
      const nested = this.arazzoSources.get(qualified[1] as string);
      return nested ? nested.sources.findWorkflow(qualified[2] as string) : undefined;
    }
    const workflows = isRecord(this.doc.value) && Array.isArray(this.doc.value['workflows']) ? this.doc.value['workflows'] : [];
    const workflow = workflows.find((w): w is Workflow => isRecord(w) && w['workflowId'] === ref);
    return workflow ? { workflow, registry: this } : undefined;
  }

  checkOperations(): Diagnostic[] {
    return checkRegistryOperations(this);
  }

  nestedRegistries(): _Registry[] {
    return [...this.arazzoSources.values()].map((a) => a.sources as _Registry);
  }
}
