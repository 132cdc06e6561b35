// Loading Arazzo (and OpenAPI) documents from YAML or JSON text. The YAML AST is kept so that
// every diagnostic can carry the line and column of the value it is about.

import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Document, LineCounter } from 'yaml';
import { loadYaml } from '../_on-demand.js';
import { ArazzoError } from '../errors.js';
import { jsonErrorOffset } from './_json-position.js';
import { locatePointer } from './_locate.js';

/** A parsed document: its JSON value plus a way back from JSON pointers to line:column. */
export interface LoadedDocument {
  /** Absolute path or URL. */
  file: string;
  value: unknown;
  /** 1-based line and column of the node a JSON pointer names (the key, for object members). */
  locate(pointer: string): { line: number; column: number } | undefined;
  /** The document cache's key for this text, when a cache was used (see rememberedCheck). */
  cacheKey?: string;
  /** The cache it was read through: its source descriptions and checks use the same one. */
  cache?: DocumentCache;
}

export interface ParseOptions {
  /** Refuse larger documents before parsing. Default 5 MiB. */
  maxBytes?: number;
  /** Parsed values by content key (see DocumentCache); default: none, every text is parsed. */
  cache?: DocumentCache;
}

/**
 * A store of parsed values by a key derived from the text (the CLI keeps one on disk). On a hit
 * the YAML is parsed again only if a diagnostic needs a line and column.
 */
export interface DocumentCache {
  key(text: string, file: string): string;
  get(key: string): unknown;
  set(key: string, value: unknown): void;
}

export const DEFAULT_MAX_BYTES = 5 * 1024 * 1024;
// The `yaml` package weighs each alias use by the aliases inside it: a flat anchor may be used
// hundreds of times, while nested aliases (a bomb) hit the limit after a few levels.
const MAX_ALIAS_COUNT = 1000;

/**
 * Parse YAML or JSON text (JSON is read as YAML 1.2, which keeps positions for both).
 *
 * @example
 * const doc = parseDocumentText('arazzo: 1.0.1', '/tmp/a.arazzo.yaml');
 * doc.locate('/arazzo'); // { line: 1, column: 1 }
 */
export function parseDocumentText(text: string, file: string, opts: ParseOptions = {}): LoadedDocument {
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  const size = Buffer.byteLength(text, 'utf8');
  if (size > maxBytes) {
    throw new ArazzoError(
      'E_DOCUMENT_PARSE',
      `${file} is ${size} bytes, larger than the ${maxBytes}-byte limit for documents; split it or raise the limit`,
      { location: { file } },
    );
  }
  const cache = opts.cache;
  const key = cache?.key(text, file);
  const cached = key === undefined ? undefined : cache?.get(key);
  if (cached !== undefined && typeof cached === 'object' && cached !== null) {
    let parsed: LoadedDocument | undefined;
    return { file, value: cached, cacheKey: key, cache: cache!, locate: (pointer) => (parsed ??= parseDocumentText(text, file, { ...opts, cache: NO_CACHE })).locate(pointer) };
  }
  const { LineCounter, parseDocument } = loadYaml();
  const lineCounter = new LineCounter();
  if (/\.json$/i.test(file)) refuseBadJson(text, file);
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false, keepSourceTokens: false });
  const first = doc.errors[0];
  if (first) {
    const pos = lineCounter.linePos(first.pos[0]);
    const what = first.code === 'DUPLICATE_KEY' ? `duplicate key: ${firstLine(first.message)}; every key may appear once per object` : firstLine(first.message);
    throw new ArazzoError('E_DOCUMENT_PARSE', `${file}:${pos.line}:${pos.col}: not valid YAML/JSON: ${what}`, {
      location: { file, line: pos.line, column: pos.col },
    });
  }
  refuseNonStringKeys(doc, lineCounter, file);
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (/alias/i.test(message)) {
      throw new ArazzoError(
        'E_DOCUMENT_PARSE',
        `${file}: refused: its YAML aliases expand beyond the limit of ${MAX_ALIAS_COUNT} (an alias bomb: aliases of aliases multiply); write the repeated values out or use fewer anchors`,
        { location: { file }, cause: err },
      );
    }
    throw new ArazzoError('E_DOCUMENT_PARSE', `${file}: not valid YAML/JSON: ${message}`, { location: { file }, cause: err });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const found = value === null ? 'an empty document' : Array.isArray(value) ? 'a list' : `the ${typeof value} ${JSON.stringify(value).slice(0, 40)}`;
    throw new ArazzoError('E_DOCUMENT_PARSE', `${file}:1:1: expected a YAML mapping or JSON object at the top level, found ${found}; is this an Arazzo/OpenAPI document?`, {
      location: { file, line: 1, column: 1 },
    });
  }
  if (key !== undefined) cache?.set(key, value);
  return {
    file,
    value,
    ...(key !== undefined && cache !== undefined && cache !== NO_CACHE ? { cacheKey: key, cache } : {}),
    locate(pointer: string) {
      return locatePointer(doc, lineCounter, pointer);
    },
  };
}

const NO_CACHE: DocumentCache = { key: () => '', get: () => undefined, set: () => undefined };

/**
 * The result of a deterministic check of a document (validation), kept in the document cache
 * beside the parsed value: `checkId` must name the check and the code that computes it, since a
 * new version may judge the same text differently. Without a cache, or for a document that did
 * not go through it, the check simply runs.
 */
export function rememberedCheck<T>(doc: LoadedDocument, checkId: string, check: () => T): T {
  const cache = doc.cache;
  if (cache === undefined || doc.cacheKey === undefined) return check();
  // The file is part of the key: a result may name it (a diagnostic's location).
  const key = cache.key(`${doc.cacheKey}\0${checkId}\0${doc.file}`, '.check');
  const hit = cache.get(key) as { result?: T } | undefined;
  if (hit !== undefined && typeof hit === 'object' && hit !== null && 'result' in hit) return hit.result as T;
  const result = check();
  cache.set(key, { result });
  return result;
}

/** Read and parse a document file ('E_DOCUMENT_READ' when it cannot be read). */
export async function loadDocumentFile(path: string, opts: ParseOptions = {}): Promise<LoadedDocument> {
  const file = resolve(path);
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  let text: string;
  try {
    // Check the size before reading, so a huge file is refused without loading it into memory.
    const info = await stat(file);
    if (info.isDirectory()) throw new ArazzoError('E_DOCUMENT_READ', `${file} is a directory; give the path of an Arazzo YAML or JSON file`, { location: { file } });
    if (info.size > maxBytes) {
      throw new ArazzoError('E_DOCUMENT_PARSE', `${file} is ${info.size} bytes, larger than the ${maxBytes}-byte limit for documents; split it or raise the limit`, {
        location: { file },
      });
    }
    text = await readFile(file, 'utf8');
  } catch (err) {
    if (err instanceof ArazzoError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : String((err as Error).message);
    throw new ArazzoError('E_DOCUMENT_READ', `cannot read ${file}: ${why}; check the path`, { location: { file }, cause: err });
  }
  return parseDocumentText(text, file, opts);
}

// The spec limits YAML keys to scalar strings (so a document round-trips to JSON).
function refuseNonStringKeys(doc: Document, lines: LineCounter, file: string): void {
  const { isMap, isScalar, visit } = loadYaml();
  visit(doc, {
    Map(_key, node) {
      if (!isMap(node)) return;
      for (const pair of node.items) {
        if (pair.key === null || isScalar(pair.key)) continue;
        const start = (pair.key as { range?: [number, number, number] }).range?.[0] ?? 0;
        const pos = lines.linePos(start);
        throw new ArazzoError('E_DOCUMENT_PARSE', `${file}:${pos.line}:${pos.col}: a key is a ${isMap(pair.key) ? 'mapping' : 'list or alias'}; keys must be plain strings`, {
          location: { file, line: pos.line, column: pos.col },
        });
      }
    },
  });
}

function refuseBadJson(text: string, file: string): void {
  const problem = jsonErrorOffset(text.replace(/^\uFEFF/, ''));
  if (!problem) return;
  const before = text.slice(0, problem.offset).split('\n');
  const line = before.length;
  const column = (before[before.length - 1] ?? '').length + 1;
  const what = problem.message.split('\n')[0]?.replace(/, "[\s\S]*$/, '') ?? problem.message;
  throw new ArazzoError('E_DOCUMENT_PARSE', `${file}:${line}:${column}: not valid JSON: ${what}`, { location: { file, line, column } });
}

function firstLine(message: string): string {
  return message.split('\n')[0] ?? message;
}
