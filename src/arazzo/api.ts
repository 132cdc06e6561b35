// The engine's four verbs for anyone who holds a document path: validate, lint, plan, run. Each
// reads the document and its source descriptions the same way (a cache and the sources' mapping
// are the caller's to give); run sends through the HttpSender and MessageTransport handed in.
import { ArazzoError, type Diagnostic } from './errors.js';
import { fetchSender, type HttpSender } from './http.js';
import type { MessageTransport } from './messaging.js';
import { loadDocumentFile, validateArazzo, assertValid, type DocumentCache, type LoadedDocument } from './document/index.js';
import { loadSources, type SourceOptions, type SourceRegistry } from './sources/index.js';
import { GENERIC_RULES, lintDocument, type LintFinding, type LintRule } from './lint/index.js';
import { planWorkflow, runWorkflow, type RunEventListener, type WorkflowPlan, type WorkflowResult } from './runner/index.js';

/** How a document and its sources are read (every verb). */
export interface ReadOptions extends Omit<SourceOptions, 'cache'> {
  /** Parsed documents kept between runs (e.g. on disk); default none. */
  cache?: DocumentCache;
  /** Refuse larger documents before parsing. Default 5 MiB. */
  maxBytes?: number;
}

export interface ValidateResult {
  /** No diagnostic of severity `error`. */
  valid: boolean;
  diagnostics: Diagnostic[];
}

/**
 * Check a document against Arazzo 1.0/1.1 (structure, references, runtime expressions, criteria)
 * and its operations against its source descriptions. A document that cannot be read or parsed
 * throws an ArazzoError (E_DOCUMENT_READ, E_DOCUMENT_PARSE); everything else is a diagnostic.
 */
export async function validate(file: string, options: ReadOptions = {}): Promise<ValidateResult> {
  const doc = await read(file, options);
  const diagnostics = validateArazzo(doc);
  try {
    const registry = await loadSources(doc, sourceOptions(options));
    const seen = new Set(diagnostics.filter((d) => d.severity === 'error').map((d) => d.pointer));
    diagnostics.push(...registry.checkOperations().filter((d) => !seen.has(d.pointer)));
  } catch (err) {
    if (!(err instanceof ArazzoError)) throw err;
    // A structural error often is why the sources could not load: then it says enough.
    if (!diagnostics.some((d) => d.severity === 'error')) diagnostics.push(...asDiagnostics(err, doc.file));
  }
  return { valid: !diagnostics.some((d) => d.severity === 'error'), diagnostics };
}

export interface LintOptions extends ReadOptions {
  /** The rules to run; default the engine's generic rules (GENERIC_RULES). */
  rules?: readonly LintRule[];
}

/** Style and robustness findings (a retry without a limit, a criterion that always passes...). Throws E_DOCUMENT_INVALID on an invalid document. */
export async function lint(file: string, options: LintOptions = {}): Promise<LintFinding[]> {
  const { doc, registry } = await open(file, options);
  return lintDocument(doc, registry, options.rules ?? GENERIC_RULES);
}

export interface PlanOptions extends ReadOptions {
  workflowId?: string;
  inputs?: Record<string, unknown>;
}

/** The steps a run would take and the requests it would send, as far as known before sending anything. */
export async function plan(file: string, options: PlanOptions = {}): Promise<WorkflowPlan> {
  const { registry } = await open(file, options);
  return planWorkflow({ registry, ...(options.workflowId === undefined ? {} : { workflowId: options.workflowId }), inputs: options.inputs ?? {} });
}

export interface RunOptions extends PlanOptions {
  /** Sends the HTTP steps' requests; default `fetchSender()` (the global fetch). */
  http?: HttpSender;
  /** Sends and receives the AsyncAPI steps' messages (Arazzo 1.1); required when the document has any. */
  messages?: MessageTransport;
  /** Every event of the run, in order (workflow/step started and finished, requests, criteria); awaited. */
  onEvent?: RunEventListener;
  signal?: AbortSignal;
  /** Step executions allowed in one run (retries and gotos count). Default 10,000. */
  maxSteps?: number;
  /** Steps of a dependsOn workflow run at most this many at a time. Default 4. */
  concurrency?: number;
}

/** Run a workflow: refusals (invalid document, bad inputs) throw an ArazzoError; a failed step is a result with status `failed`. */
export async function run(file: string, options: RunOptions = {}): Promise<WorkflowResult> {
  const { registry } = await open(file, options);
  if (registry.asyncapi.size > 0 && options.messages === undefined) {
    const names = [...registry.asyncapi.keys()].join(', ');
    const fix = 'pass `messages` (a MessageTransport, e.g. createKafkaTransport() from @offsetctl/arazzo/kafka)';
    throw new ArazzoError('E_SOURCE', `the document has AsyncAPI sources (${names}) but no message transport was given; ${fix}`);
  }
  return runWorkflow({
    registry,
    inputs: options.inputs ?? {},
    http: options.http ?? fetchSender(),
    ...(options.workflowId === undefined ? {} : { workflowId: options.workflowId }),
    ...(options.messages === undefined ? {} : { messages: options.messages }),
    ...(options.onEvent === undefined ? {} : { onEvent: options.onEvent }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.maxSteps === undefined ? {} : { maxSteps: options.maxSteps }),
    ...(options.concurrency === undefined ? {} : { concurrency: options.concurrency }),
  });
}

async function read(file: string, options: ReadOptions): Promise<LoadedDocument> {
  return loadDocumentFile(file, {
    ...(options.cache === undefined ? {} : { cache: options.cache }),
    ...(options.maxBytes === undefined ? {} : { maxBytes: options.maxBytes }),
  });
}

/** A valid document and its sources, or the refusal (E_DOCUMENT_INVALID with every diagnostic). */
async function open(file: string, options: ReadOptions): Promise<{ doc: LoadedDocument; registry: SourceRegistry }> {
  const doc = await read(file, options);
  assertValid(doc, validateArazzo(doc));
  const registry = await loadSources(doc, sourceOptions(options));
  assertValid(doc, registry.checkOperations());
  return { doc, registry };
}

function sourceOptions(options: ReadOptions): SourceOptions {
  const { cache: _cache, maxBytes: _maxBytes, ...sources } = options;
  return sources;
}

function asDiagnostics(err: ArazzoError, file: string): Diagnostic[] {
  if (err.diagnostics.length > 0) return err.diagnostics;
  return [{ code: err.code, message: err.message, severity: 'error', file, ...err.location }];
}
