// Where the sandbox keeps things: one folder holding the jars, the rendered configuration, the
// Kafka and Connect data, the process logs and the state file.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface SandboxLayout {
  dir: string;
  lib: string;
  config: string;
  data: string;
  logs: string;
  stateFile: string;
  lockFile: string;
}

/** `--dir`, else `$OFFSETCTL_SANDBOX_DIR`, else `${XDG_CACHE_HOME:-~/.cache}/offsetctl/sandbox`. */
export function resolveSandboxDir(explicit?: string, env: NodeJS.ProcessEnv = process.env): string {
  if (explicit) return resolve(explicit);
  if (env['OFFSETCTL_SANDBOX_DIR']) return resolve(env['OFFSETCTL_SANDBOX_DIR']);
  const cache = env['XDG_CACHE_HOME'] || join(homedir(), '.cache');
  return resolve(cache, 'offsetctl', 'sandbox');
}

/**
 * The command line for `offsetctl sandbox <verb>` on this sandbox: with `--dir` unless the folder
 * is the one a plain command picks on any shell (the built-in default), so advice never points
 * at another sandbox (`sandbox up --dir X` used to say `offsetctl sandbox down`, which stops the
 * default one).
 */
export function sandboxCommand(verb: string, dir: string): string {
  const fallback = resolveSandboxDir(undefined, { ...(process.env['XDG_CACHE_HOME'] ? { XDG_CACHE_HOME: process.env['XDG_CACHE_HOME'] } : {}) });
  if (resolve(dir) === fallback) return `offsetctl sandbox ${verb}`;
  const quoted = /^[\w@%+=:,./-]+$/.test(dir) ? dir : `'${dir.replace(/'/g, `'\\''`)}'`;
  return `offsetctl sandbox ${verb} --dir ${quoted}`;
}

export function sandboxLayout(dir: string): SandboxLayout {
  return {
    dir,
    lib: join(dir, 'lib'),
    config: join(dir, 'config'),
    data: join(dir, 'data'),
    logs: join(dir, 'logs'),
    stateFile: join(dir, 'state.json'),
    lockFile: join(dir, 'up.lock'),
  };
}

/** The offsetctl checkout or package this module runs from (holds sandbox/pom.xml). */
export function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'offsetctl') return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the offsetctl project folder (package.json named "offsetctl") above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
}

/** The folder with pom.xml and the property templates. */
export function sandboxAssets(): string {
  return join(projectRoot(), 'sandbox');
}
