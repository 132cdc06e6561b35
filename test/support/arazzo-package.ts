// The engine's package as a user gets it: `npm pack` of packages/arazzo (prepack builds it from
// src/arazzo), installed from the tarball into an empty folder. npm needs no registry: the package
// bundles its libraries.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './repo.js';

export const packageDir = join(repoRoot, 'packages', 'arazzo');

function npm(args: string[], cwd: string): string {
  const env = { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
  const r = spawnSync('npm', args, { cwd, encoding: 'utf8', env });
  assert.equal(r.status, 0, `npm ${args.join(' ')} failed:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

export interface InstalledPackage {
  /** The consumer's folder, with node_modules/@offsetctl/arazzo. */
  app: string;
  /** node_modules/.bin/arazzo */
  bin: string;
  /** The files the tarball holds. */
  files: string[];
}

/**
 * `npm pack` rebuilds packages/arazzo/dist (prepack): two test files packing at once would read
 * each other's half-built folder, so packing holds a lock file (one per checkout).
 */
function packOnce(dir: string): string {
  const lock = join(tmpdir(), `arazzo-pack-${Buffer.from(packageDir).toString('hex').slice(-32)}.lock`);
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      closeSync(openSync(lock, 'wx'));
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`${lock}: another test has been packing for 2 minutes; remove the file if no test runs`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
  try {
    return npm(['pack', '--json', '--pack-destination', dir], packageDir);
  } finally {
    rmSync(lock, { force: true });
  }
}

/** Pack the package into `dir` and install the tarball into `dir`/app, offline. */
export function packAndInstall(dir: string): InstalledPackage {
  const packed = JSON.parse(packOnce(dir)) as Array<{ filename: string; files: Array<{ path: string }> }>;
  const { filename, files } = packed[0]!;
  const app = join(dir, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), '{"name": "consumer", "private": true, "type": "module"}\n');
  npm(['install', '--offline', '--ignore-scripts', '--no-package-lock', join(dir, filename)], app);
  return { app, bin: join(app, 'node_modules', '.bin', 'arazzo'), files: files.map((f) => f.path) };
}
