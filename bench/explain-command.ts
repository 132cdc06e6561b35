// "Which imports cost": profiles one run of a command with `node --cpu-prof`, lists the packages
// and project files whose code ran, then imports each of them alone into a fresh Node (median of
// three) to price it. Used when a whole-process figure is slow.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { repoRoot } from './figure.js';
import { timeSpawn } from './process.js';
import { readProfileDir, topPackages, type ProfileLine } from './profile.js';
import { median, round } from './stats.js';

export interface CommandExplanation {
  /** Self time by package / project file in one profiled run. */
  profile: ProfileLine[];
  /** Each package or project module whose code ran, imported alone (its own dependencies included). */
  imports: Array<{ spec: string; ms: number }>;
  /** Self time inside Node's module loader (resolution, CJS export lexing, compilation), ms. */
  moduleLoaderMs: number;
  /** The same as a share of the busy (not idle) time of the run. */
  moduleLoaderShare: number;
}

/** Profile buckets that are Node resolving, reading, lexing and compiling modules. */
function isModuleLoading(name: string): boolean {
  return name.startsWith('node:internal/modules/') || name.startsWith('node:internal/deps/cjs-module-lexer') || name === 'internalModuleStat';
}

/** `args` are what follows `node` (script path first). */
export async function explainCommand(args: readonly string[], maxImports = 12): Promise<CommandExplanation> {
  const dir = mkdtempSync(join(tmpdir(), 'offsetctl-bench-prof-'));
  try {
    const run = await timeSpawn(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${dir}`, ...args]);
    if (run.status !== 0) throw new Error(`profiled command failed (exit ${run.status}): ${run.stderr.trim().slice(0, 300)}`);
    const all = topPackages(readProfileDir(dir), Number.MAX_SAFE_INTEGER);
    const profile = all.slice(0, 40);
    const busy = all.filter((p) => p.name !== '(idle)').reduce((sum, p) => sum + p.selfMs, 0);
    const moduleLoaderMs = all.filter((p) => isModuleLoading(p.name)).reduce((sum, p) => sum + p.selfMs, 0);
    // Packages show as bare names, project files as paths relative to the repo; runtime buckets
    // ("(garbage collector)") and node internals cannot be imported on their own.
    const specs = profile
      .map((p) => p.name)
      .filter((name) => /^[@a-z]/.test(name) && !name.startsWith('node:') && !name.startsWith('dist/bench/'))
      .map((name) => (name.startsWith('dist/') ? resolve(repoRoot, name) : name));
    const imports: CommandExplanation['imports'] = [];
    for (const spec of [...new Set(specs)].slice(0, maxImports)) {
      const samples: number[] = [];
      for (let i = 0; i < 3; i++) {
        const r = await timeSpawn(process.execPath, [resolve(repoRoot, 'dist', 'bench', 'import-cost.js'), spec]);
        if (r.status !== 0) break;
        samples.push((JSON.parse(r.stdout) as { ms: number }).ms);
      }
      if (samples.length > 0) imports.push({ spec: spec.startsWith(repoRoot) ? spec.slice(repoRoot.length + 1) : spec, ms: round(median(samples)) });
    }
    imports.sort((a, b) => b.ms - a.ms);
    return { profile, imports, moduleLoaderMs: round(moduleLoaderMs), moduleLoaderShare: busy > 0 ? round(moduleLoaderMs / busy, 3) : 0 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
