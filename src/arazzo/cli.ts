// The package's tiny command line: `arazzo validate|lint|plan|run <document>`, for running Arazzo
// documents without the operator tool. Exit status: 0 done (valid, no lint error, run passed),
// 1 a run that failed or lint errors, 2 a refusal (bad flags, unreadable or invalid document,
// inputs the schema refuses) — nothing was sent then.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ArazzoError, REFUSAL_CODES, formatLocation, type Diagnostic } from './errors.js';
import type { MessageTransport } from './messaging.js';
import { lint, plan, run, validate, type ReadOptions } from './api.js';
import { loadDocumentFile } from './document/index.js';

const USAGE = `usage: arazzo <validate|lint|plan|run> <document> [options]
  --inputs <file>          workflow inputs (JSON or YAML object)
  --workflow <id>          the workflow to plan or run (default: the only or first one)
  --source <name>=<path>   read a source description from a local file instead of its url
  --server <url>           send every source's requests to this server (or <name>=<url> for one)
  --allow-remote           fetch http(s) source descriptions
  --transport <module>     for AsyncAPI steps: a module whose createTransport() returns a MessageTransport
  --json                   print the result as JSON`;

class UsageError extends Error {}

export async function main(argv: readonly string[]): Promise<number> {
  let values: Record<string, string | boolean | string[] | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        inputs: { type: 'string' }, workflow: { type: 'string' }, source: { type: 'string', multiple: true },
        server: { type: 'string', multiple: true }, 'allow-remote': { type: 'boolean' }, transport: { type: 'string' },
        json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    return usage((err as Error).message);
  }
  if (values.help === true) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const [verb, file, ...extra] = positionals;
  if (verb === undefined) return usage('a verb is missing');
  if (!['validate', 'lint', 'plan', 'run'].includes(verb)) return usage(`unknown verb "${verb}"`);
  if (file === undefined) return usage(`${verb}: the document's path is missing`);
  if (extra.length > 0) return usage(`unexpected argument "${extra[0]}"`);
  const json = values.json === true;
  try {
    const read = readOptions(values);
    if (verb === 'validate') {
      const { valid, diagnostics } = await validate(file, read);
      print(json ? { valid, diagnostics } : diagnostics.map(diagnosticLine).concat(valid ? [`${file}: valid`] : []).join('\n'), json);
      return valid ? 0 : 2;
    }
    if (verb === 'lint') {
      const findings = await lint(file, read);
      const lines = findings.map((f) => `${f.file}:${f.line ?? 1}:${f.column ?? 1}: ${f.severity} [${f.rule}] ${f.message}`);
      print(json ? findings : lines.join('\n') || `${file}: no findings`, json);
      return findings.some((f) => f.severity === 'error') ? 1 : 0;
    }
    const inputs = typeof values.inputs === 'string' ? await readInputs(values.inputs) : {};
    const workflowId = typeof values.workflow === 'string' ? { workflowId: values.workflow } : {};
    if (verb === 'plan') {
      const planned = await plan(file, { ...read, ...workflowId, inputs });
      print(json ? planned : planned.steps.map((s) => `${s.workflowId}/${s.stepId}: ${s.operation ?? s.message?.address ?? s.kind}`).join('\n'), json);
      return 0;
    }
    const messages = typeof values.transport === 'string' ? await loadTransport(values.transport) : undefined;
    const abort = new AbortController();
    const onSigint = (): void => abort.abort();
    process.once('SIGINT', onSigint);
    try {
      const result = await run(file, {
        ...read, ...workflowId, inputs, signal: abort.signal,
        ...(messages === undefined ? {} : { messages }),
        ...(json ? {} : {
          onEvent: (e) => {
            if (e.type !== 'step.finished') return;
            process.stdout.write(`${e.status === 'passed' ? 'ok  ' : 'FAIL'} ${e.workflowId}/${e.stepId}${e.error ? `: ${e.error.message}` : ''}\n`);
          },
        }),
      });
      print(json ? result : `${result.workflowId}: ${result.status}${result.error ? ` [${result.error.code}] ${result.error.message}` : ''}`, json);
      return result.status === 'passed' ? 0 : 1;
    } finally {
      process.off('SIGINT', onSigint);
      await messages?.close();
    }
  } catch (err) {
    if (err instanceof UsageError) return usage(err.message);
    if (err instanceof ArazzoError) {
      for (const d of err.diagnostics) process.stderr.write(`${diagnosticLine(d)}\n`);
      if (err.diagnostics.length === 0) process.stderr.write(`error [${err.code}]: ${err.message}\n`);
      return REFUSAL_CODES.has(err.code) ? 2 : 1;
    }
    throw err;
  }
}

function readOptions(values: Record<string, string | boolean | string[] | undefined>): ReadOptions {
  const overrides: Record<string, string> = {};
  for (const pair of (values.source as string[] | undefined) ?? []) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new UsageError(`--source "${pair}": expected <sourceName>=<path>`);
    overrides[pair.slice(0, at)] = pair.slice(at + 1);
  }
  const servers: NonNullable<ReadOptions['servers']> = {};
  for (const value of (values.server as string[] | undefined) ?? []) {
    const named = /^([A-Za-z0-9_-]+)=(.+)$/.exec(value);
    if (named) (servers.byName ??= {})[named[1] as string] = named[2] as string;
    else if (/^https?:\/\//i.test(value)) servers.all = value;
    else throw new UsageError(`--server "${value}": expected an http(s) URL or <sourceName>=<url>`);
  }
  return { overrides, servers, allowRemote: values['allow-remote'] === true };
}

async function readInputs(file: string): Promise<Record<string, unknown>> {
  // YAML is a superset of JSON: one reader for both, with the line of a mistake.
  return (await loadDocumentFile(file)).value as Record<string, unknown>;
}

async function loadTransport(module: string): Promise<MessageTransport> {
  const target = /^[./]/.test(module) ? pathToFileURL(resolve(module)).href : module;
  const loaded = (await import(target)) as { createTransport?: () => MessageTransport | Promise<MessageTransport> };
  if (typeof loaded.createTransport !== 'function') throw new UsageError(`--transport ${module}: the module exports no createTransport() function`);
  return loaded.createTransport();
}

function diagnosticLine(d: Diagnostic): string {
  return `${formatLocation(d)}: ${d.severity} [${d.code}] ${d.message}`;
}

function print(value: unknown, json: boolean): void {
  process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${String(value)}\n`);
}

function usage(message: string): number {
  process.stderr.write(`arazzo: ${message}\n${USAGE}\n`);
  return 2;
}
