// V8's code cache for the CLI on a Node without a module compile cache (module.enableCompileCache
// came in 22.1; Node 20 has none). There every run parsed and compiled the bundle's modules
// again: about 60-130 ms of a rewind's own time. The launcher (bin/offsetctl) then runs the
// one-file CommonJS build of the CLI (dist/bundle/cli/offsetctl.cjs) through vm.Script with the
// code V8 compiled in an earlier run of the same verb, kept in the user's cache folder.
//
// A cache file is one JSON header line, then V8's data. The header names the bundle (size and
// CRC-32 of its text: npm gives every installed file the same mtime, and V8 itself checks only
// the source's length, so a fix that keeps the length would otherwise run the old code), Node's
// version and architecture, the exit status of the run that wrote it and a CRC-32
// of the data: a rebuilt bundle, another Node or a damaged file is compiled afresh and written
// again, never run from stale code. V8 itself also refuses data made by another V8 or under other
// flags (cachedDataRejected). Files are written whole (temporary file, then rename), so
// concurrent runs never read half a file.
import { mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { constants as vmConstants, Script } from 'node:vm';
import { crc32 } from 'node:zlib';
import { prepareArgs } from './argv.js';
import { startupV8Flags } from './v8-flags.js';

/** What became of the cache: none yet, used, or refused (and why) and compiled afresh. */
export type CodeCacheStatus = 'none' | 'used' | 'rejected' | 'corrupt' | 'stale' | 'off';

interface CacheHeader {
  format: 1;
  /** The bundle's size and CRC-32: a rebuilt or upgraded bundle never runs stale code. */
  source: string;
  node: string;
  arch: string;
  /** Exit status of the run that wrote it: a failed run's cache gives way to a successful one's. */
  exitStatus: number;
  crc: number;
  length: number;
}

export interface LoadedScript {
  exports: unknown;
  status: CodeCacheStatus;
}

/**
 * Runs a CommonJS file through vm.Script with V8's cached data from `cacheFile` (when there is
 * usable data), and writes the cache at exit when it was missing or refused, or when it came from
 * a failed run and this one succeeded. Without a cacheFile it just runs the file.
 *
 * @example loadWithCodeCache('/opt/offsetctl/dist/bundle/cli/offsetctl.cjs', '/home/me/.cache/offsetctl/code-cache/rewind.bin').status  // 'used'
 */
export function loadWithCodeCache(path: string, cacheFile: string | undefined): LoadedScript {
  const file = resolve(path);
  const bytes = readFileSync(file);
  const source = bytes.toString('utf8');
  const expected = { format: 1 as const, source: `${bytes.length}:${crc32(bytes)}`, node: process.version, arch: process.arch };
  const found = cacheFile === undefined ? undefined : readCache(cacheFile, expected);
  // The same wrapper as Node's own CommonJS loader, on the first line: line numbers hold.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) { ${source}\n})`, {
    filename: file,
    ...(found?.data ? { cachedData: found.data } : {}),
    importModuleDynamically: vmConstants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  let status: CodeCacheStatus = cacheFile === undefined ? 'off' : found?.status ?? 'none';
  if (status === 'used' && script.cachedDataRejected === true) status = 'rejected';
  if (cacheFile !== undefined) {
    const writtenBy = found?.header?.exitStatus;
    process.once('exit', (code) => {
      const exitStatus = typeof code === 'number' ? code : 0;
      if (status !== 'used' || (writtenBy !== 0 && exitStatus === 0)) writeCache(cacheFile, expected, exitStatus, script.createCachedData());
    });
  }
  const module = { exports: {} as unknown };
  const run = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => void;
  run.call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
  return { exports: module.exports, status };
}

/**
 * The launcher's way in: the flags main() would set, then the CLI from the CommonJS bundle with
 * the cache of this verb. OFFSETCTL_CODE_CACHE_DEBUG=1 says on stderr what became of the cache.
 */
export function runCliWithCodeCache(bundleFile: string, argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const args = prepareArgs(argv.slice(2)).args;
  for (const flag of startupV8Flags(args)) setFlagsFromString(flag);
  const cacheFile = codeCacheFile(args, env);
  const loaded = loadWithCodeCache(bundleFile, cacheFile);
  if (env['OFFSETCTL_CODE_CACHE_DEBUG'] === '1') process.stderr.write(`code cache: ${loaded.status}${cacheFile ? ` (${cacheFile})` : ''}\n`);
  return (loaded.exports as { main: (argv: string[]) => Promise<void> }).main(argv);
}

/**
 * One cache per verb (a dry run and --help apart: they run other code), in
 * $OFFSETCTL_CODE_CACHE_DIR, else $XDG_CACHE_HOME/offsetctl/code-cache, else
 * ~/.cache/offsetctl/code-cache. NODE_DISABLE_COMPILE_CACHE (Node's own switch) turns it off.
 *
 * @example codeCacheFile(['rewind', 'c1', '--dry-run'], { HOME: '/home/me' })  // '/home/me/.cache/offsetctl/code-cache/rewind-dry-run.bin'
 */
export function codeCacheFile(args: readonly string[], env: NodeJS.ProcessEnv): string | undefined {
  if (env['NODE_DISABLE_COMPILE_CACHE'] !== undefined && env['NODE_DISABLE_COMPILE_CACHE'] !== '') return undefined;
  let folder = env['OFFSETCTL_CODE_CACHE_DIR'];
  if (!folder) {
    let base = env['XDG_CACHE_HOME'];
    try {
      base ||= join(env['HOME'] || homedir(), '.cache');
    } catch {
      return undefined; // no home folder: no cache
    }
    folder = join(base, 'offsetctl', 'code-cache');
  }
  const verb = args[0] !== undefined && /^[a-z][a-z0-9-]{0,39}$/.test(args[0]) ? args[0] : 'other';
  const mode = args.includes('--help') || args.includes('-h') ? '-help' : args.includes('--dry-run') ? '-dry-run' : '';
  return join(folder, `${verb}${mode}.bin`);
}

function readCache(file: string, expected: Omit<CacheHeader, 'exitStatus' | 'crc' | 'length'>): { status: CodeCacheStatus; header?: CacheHeader; data?: Buffer } {
  let buf: Buffer;
  try {
    buf = readFileSync(file);
  } catch {
    return { status: 'none' };
  }
  const newline = buf.indexOf(10);
  let header: CacheHeader;
  try {
    header = JSON.parse(buf.subarray(0, newline < 0 ? 0 : newline).toString('utf8')) as CacheHeader;
  } catch {
    return { status: 'corrupt' };
  }
  if (header.format !== expected.format || header.source !== expected.source || header.node !== expected.node || header.arch !== expected.arch) return { status: 'stale', header };
  const data = buf.subarray(newline + 1);
  if (data.length !== header.length || crc32(data) !== header.crc) return { status: 'corrupt', header };
  return { status: 'used', header, data };
}

function writeCache(file: string, expected: Omit<CacheHeader, 'exitStatus' | 'crc' | 'length'>, exitStatus: number, data: Buffer): void {
  const header: CacheHeader = { ...expected, exitStatus, crc: crc32(data), length: data.length };
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(temporary, Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), data]), { mode: 0o600 });
    renameSync(temporary, file);
  } catch {
    // A read-only or full cache folder only costs speed.
    try {
      unlinkSync(temporary);
    } catch {
      // nothing was written
    }
  }
}
