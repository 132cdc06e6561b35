// The implementation behind `offsetctl workflow ...`, loaded lazily by workflow.ts.
import { readFile } from 'node:fs/promises';
// The document and source modules are all `validate` needs; the runner (criteria, request
// building, ajv for inputs) is imported by the commands that run or plan.
import { assertValid, loadDocumentFile, validateArazzo } from '../../arazzo/document/index.js';
import { loadSources } from '../../arazzo/sources/index.js';
import type { ArazzoHint, Diagnostic, LoadedDocument, SourceRegistry, WorkflowPlan } from '../../arazzo/index.js';
import { kafkaSecurityFromFlags, type KafkaFlags } from '../kafka-settings.js';
import { refusalResult, renderJson } from '../render/json.js';
import { renderJunit } from '../render/junit.js';
import { renderDiagnosticsText, renderPlanText } from '../render/plan.js';
import { createTextProgress, renderTextSummary } from '../render/text.js';
import { ReportedFailure, formatError } from '../exit-status.js';
import { documentReadOptions } from '../document-cache.js';
import { advisedError, advisedResult } from '../flag-advice.js';
import { currentIO, fromCwd } from '../io.js';
import * as load from '../load.js';

class UsageError extends Error {
  readonly code = 'E_USAGE';
}

interface SourceArgs {
  source?: string[];
  server?: string[];
  allowRemote?: boolean;
}

interface InputArgs {
  workflow?: string;
  input?: string[];
  inputs?: string;
}

const out = (text: string): void => void currentIO().stdout.write(text);
const PLACEHOLDER_SERVER = 'http://server.invalid';

function splitPair(text: string, option: string): [string, string] {
  const eq = text.indexOf('=');
  if (eq <= 0) throw new UsageError(`${option} "${text}": expected name=value`);
  return [text.slice(0, eq), text.slice(eq + 1)];
}

/** `--input name=value`: JSON when the value is valid JSON (numbers, arrays, objects, true), else the text. */
export function parseInputValue(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

export async function collectInputs(args: InputArgs): Promise<Record<string, unknown>> {
  let inputs: Record<string, unknown> = {};
  if (args.inputs) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(await readFile(fromCwd(args.inputs), 'utf8'));
    } catch (err) {
      throw new UsageError(`--inputs ${args.inputs}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : `not valid JSON (${(err as Error).message})`}`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new UsageError(`--inputs ${args.inputs}: must hold a JSON object of input names to values`);
    inputs = parsed as Record<string, unknown>;
  }
  // A flag overrides the --inputs file; the same name twice among the flags is a mistake, not
  // "the last one wins" (which silently dropped the first).
  const given = new Map<string, string>();
  for (const pair of args.input ?? []) {
    const [name, value] = splitPair(pair, '--input');
    const earlier = given.get(name);
    if (earlier !== undefined) {
      throw new UsageError(`--input ${name} is given twice (${JSON.stringify(earlier)}, then ${JSON.stringify(value)}); give each input once (a list is one JSON value: --input ${name}='["a","b"]')`);
    }
    given.set(name, value);
    inputs[name] = parseInputValue(value);
  }
  return inputs;
}

/** `--server http://h:1` applies to every source; `--server name=http://h:1` to one. */
export function parseServers(values: string[]): { all?: string; byName: Record<string, string> } {
  const servers: { all?: string; byName: Record<string, string> } = { byName: {} };
  for (const value of values) {
    // name=value: an http(s) URL for OpenAPI sources, host:port[,host:port] for AsyncAPI (Kafka) sources.
    const named = /^([A-Za-z0-9_.-]+)=(.+)$/.exec(value);
    if (named) servers.byName[named[1]!] = named[2]!;
    else if (/^https?:\/\//i.test(value)) servers.all = value;
    else throw new UsageError(`--server "${value}": expected an http(s) URL or <sourceName>=<url>`);
  }
  return servers;
}

export async function openDocument(file: string, args: SourceArgs): Promise<{ doc: LoadedDocument; registry: SourceRegistry; warnings: Diagnostic[] }> {
  const doc = await loadDocumentFile(fromCwd(file), documentReadOptions());
  const diagnostics = validateArazzo(doc);
  const overrides: Record<string, string> = {};
  for (const pair of args.source ?? []) {
    const [name, target] = splitPair(pair, '--source');
    overrides[name] = target;
  }
  const structural = diagnostics.some((d) => d.severity === 'error');
  // One pass reports everything: operations are checked even when the structure has errors, as
  // far as the sources can be loaded (a load failure then only hides the operation checks).
  let registry: SourceRegistry | undefined;
  let operationDiagnostics: Diagnostic[] = [];
  try {
    registry = await loadSources(doc, { overrides, baseDir: currentIO().cwd(), allowRemote: args.allowRemote === true, servers: parseServers(args.server ?? []) });
    operationDiagnostics = registry.checkOperations();
  } catch (err) {
    if (!structural) throw err;
  }
  // An operation problem at a place the structure checks already flagged says the same thing again.
  const flagged = new Set(diagnostics.filter((d) => d.severity === 'error').map((d) => d.pointer));
  const all = [...diagnostics, ...operationDiagnostics.filter((d) => !(d.severity === 'error' && flagged.has(d.pointer) && !/reply of operation/.test(d.message)))].sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
  assertValid(doc, all);
  return { doc, registry: registry!, warnings: all.filter((d) => d.severity !== 'error') };
}

function checkFormat(format: unknown, allowed: string[]): string {
  const f = String(format ?? 'text');
  if (!allowed.includes(f)) throw new UsageError(`--output ${f}: expected one of ${allowed.join(', ')}`);
  return f;
}

export async function runCommand(file: string, opts: SourceArgs & InputArgs & KafkaFlags & { output?: string; maxSteps?: string; concurrency?: string }): Promise<void> {
  const format = checkFormat(opts.output, ['text', 'json', 'junit']);
  let failed = false;
  try {
    const maxSteps = Number(opts.maxSteps ?? 10_000);
    if (!Number.isInteger(maxSteps) || maxSteps < 1) throw new UsageError(`--max-steps ${opts.maxSteps}: expected a positive whole number`);
    const concurrency = Number(opts.concurrency ?? 4);
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new UsageError(`--concurrency ${opts.concurrency}: expected a positive whole number`);
    const security = await kafkaSecurityFromFlags(opts);
    const inputs = await collectInputs(opts);
    const { registry, warnings } = await openDocument(file, opts);
    for (const w of warnings) currentIO().stderr.write(`warning [${w.code}]: ${w.message}\n`);
    // undici is loaded only by the command that sends requests (validate and plan never do).
    const { HttpClient } = await load.httpClient();
    const http = new HttpClient();
    // The Kafka client is loaded only for documents with AsyncAPI sources.
    const messages = registry.asyncapi.size > 0 ? (await load.kafkaMessaging()).createKafkaTransport({ settings: security }) : undefined;
    const abort = new AbortController();
    const onSigint = (): void => abort.abort();
    process.once('SIGINT', onSigint);
    try {
      const { runWorkflow } = await load.arazzoRunner();
      const result = await runWorkflow({
        registry,
        ...(opts.workflow ? { workflowId: opts.workflow } : {}),
        inputs,
        http,
        maxSteps,
        concurrency,
        ...(messages ? { messages } : {}),
        signal: abort.signal,
        ...(format === 'text' ? { onEvent: createTextProgress(out) } : {}),
      });
      // The engine's errors are neutral; here they gain advice about this command's flags.
      const shown = advisedResult(result);
      if (format === 'text') out(renderTextSummary(shown));
      else if (format === 'json') out(renderJson(shown));
      else out(renderJunit(shown));
      failed = result.status === 'failed';
    } finally {
      process.off('SIGINT', onSigint);
      await Promise.all([http.close(), messages?.close()]);
    }
  } catch (err) {
    // Refusals still give scripts and CI their one document; main.ts sets the exit status.
    if (format === 'json') out(renderJson(advisedResult(refusalResult(opts.workflow, err))));
    if (format === 'junit') out(renderJunit(advisedResult(refusalResult(opts.workflow, err))));
    throw err;
  }
  // The report above is the whole account; main sets the exit status.
  if (failed) throw new ReportedFailure('E_WORKFLOW_FAILED');
}

export async function validateCommand(file: string, opts: SourceArgs & { output?: string }): Promise<void> {
  const format = checkFormat(opts.output, ['text', 'json']);
  if (format === 'text') {
    const { warnings } = await openDocument(file, opts);
    out(renderDiagnosticsText(file, warnings));
    return;
  }
  const { report, error } = await validateReport(file, opts);
  out(`${JSON.stringify(report, null, 2)}\n`);
  if (error) throw error;
}

/** One file's validation as the JSON report says it, and the error that made it invalid. */
async function validateReport(file: string, opts: SourceArgs): Promise<{ report: Record<string, unknown>; error?: unknown }> {
  try {
    const { warnings } = await openDocument(file, opts);
    return { report: { file, valid: true, diagnostics: warnings } };
  } catch (err) {
    const e = err as { code?: string; message?: string; diagnostics?: Diagnostic[]; hint?: ArazzoHint };
    const error = advisedError({ code: e.code ?? 'E_INTERNAL', message: e.message ?? String(err), ...(e.hint ? { hint: e.hint } : {}) });
    return { report: { file, valid: false, error, diagnostics: e.diagnostics ?? [] }, error: err };
  }
}

/**
 * `workflow validate a.yaml b.yaml …`: one report per file, every file checked whatever the ones
 * before said (text: each file's lines and its verdict, a refused file's error on stderr; JSON: an
 * array of the one-file reports). The exit status is the worst: 2 when any file is invalid.
 */
export async function validateFiles(files: string[], opts: SourceArgs & { output?: string }): Promise<void> {
  const format = checkFormat(opts.output, ['text', 'json']);
  const failed: Array<{ file: string; error: unknown }> = [];
  const reports: Array<Record<string, unknown>> = [];
  for (const file of files) {
    const { report, error } = await validateReport(file, opts);
    reports.push(report);
    if (error !== undefined) failed.push({ file, error });
    if (format === 'text') {
      if (error === undefined) out(renderDiagnosticsText(file, report.diagnostics as Diagnostic[]));
      else await reportFileError(file, error);
    }
  }
  if (format === 'json') out(`${JSON.stringify(reports, null, 2)}\n`);
  if (failed.length > 0) throw manyFilesFailed(failed, files.length, 'valid');
}

/** A file that could not be checked, among several: its error as the CLI prints one, on stderr. */
export async function reportFileError(file: string, error: unknown): Promise<void> {
  currentIO().stderr.write(`${file}: ${formatError(error, { flagAdvice: 'workflow' })}\n`);
}

/** The error of a command over several files: the first failure's code (so its exit status), naming every file. */
export function manyFilesFailed(failed: Array<{ file: string; error: unknown }>, total: number, what: string): Error {
  const code = (failed[0]!.error as { code?: unknown }).code;
  const message = `${failed.length} of ${total} file(s) not ${what}: ${failed.map((f) => f.file).join(', ')} (see above)`;
  return Object.assign(new Error(message), { code: typeof code === 'string' ? code : 'E_INTERNAL' });
}

export async function planCommand(file: string, opts: SourceArgs & InputArgs & { output?: string }): Promise<void> {
  const format = checkFormat(opts.output, ['text', 'json']);
  const inputs = await collectInputs(opts);
  const planFor = async (args: SourceArgs) => {
    const { registry } = await openDocument(file, args);
    const { planWorkflow } = await load.arazzoRunner();
    return planWorkflow({ registry, ...(opts.workflow ? { workflowId: opts.workflow } : {}), inputs });
  };
  let plan: WorkflowPlan;
  try {
    plan = await planFor(opts);
  } catch (err) {
    // A plan needs no server: without one, URLs are shown under a {server} placeholder.
    if ((err as { code?: unknown }).code !== 'E_SOURCE' || (err as { hint?: { kind?: unknown } }).hint?.kind !== 'set-server') throw err;
    plan = await planFor({ ...opts, server: [...(opts.server ?? []), PLACEHOLDER_SERVER] });
    for (const step of plan.steps) if (step.request) step.request.url = step.request.url.replace(PLACEHOLDER_SERVER, '{server}');
  }
  out(format === 'json' ? `${JSON.stringify(plan, null, 2)}\n` : renderPlanText(plan));
}
