// Parsed Arazzo/OpenAPI documents kept on disk between runs, so a command does not parse the
// same YAML (the shipped workflows, the OpenAPI description, a user's document) every time:
// parsing is most of a short command's own work. One file per content key under
// <state dir>/cache/documents/. A hit is checked (format, key) and a file that cannot be read or
// decoded is ignored (parsed again and rewritten); writes go to a temp file renamed into place,
// so concurrent processes never see half a file. OFFSETCTL_NO_DOCUMENT_CACHE=1 turns it off.
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import type { DocumentCache } from '../arazzo/document/index.js';

let active: DocumentCache | undefined;

/** main gives this command's cache here (and to ops); the engine keeps none of its own. */
export function setActiveDocumentCache(cache: DocumentCache | undefined): void {
  active = cache;
}

/** How this command reads a document: through the cache main set up, when there is one. */
export function documentReadOptions(): { cache?: DocumentCache } {
  return active === undefined ? {} : { cache: active };
}

/** Bump when what the parser produces changes (the key covers the text, not the code). */
const FORMAT = 'offsetctl-documents-1';

export function documentCache(stateDir: string): DocumentCache {
  const dir = join(stateDir, 'cache', 'documents');
  const fileOf = (key: string) => join(dir, `${key}.v8`);
  return {
    // JSON files are parsed more strictly (the extension decides), so it is part of the key.
    key: (text, file) => createHash('sha256').update(FORMAT).update(/\.json$/i.test(file) ? '\0json\0' : '\0yaml\0').update(text).digest('hex'),
    get(key) {
      try {
        // v8 serialization keeps what JSON cannot (.inf, .nan, -0) and is faster to read back.
        const entry = deserialize(readFileSync(fileOf(key))) as { format?: unknown; key?: unknown; value?: unknown };
        return entry.format === FORMAT && entry.key === key ? entry.value : undefined;
      } catch {
        return undefined; // missing, unreadable or corrupted: parse instead
      }
    },
    set(key, value) {
      const tmp = `${fileOf(key)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
      try {
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        writeFileSync(tmp, serialize({ format: FORMAT, key, value }), { mode: 0o600 });
        renameSync(tmp, fileOf(key));
      } catch {
        // A read-only or full state folder only costs the next run a parse.
        rmSync(tmp, { force: true });
      }
    },
  };
}

/** The state folder a command line will use: --state-dir, else the environment, else the default. */
export function stateDirFromArgs(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === '--') break;
    if (a === '--state-dir') return args[i + 1];
    if (a.startsWith('--state-dir=')) return a.slice('--state-dir='.length);
  }
  return undefined;
}
