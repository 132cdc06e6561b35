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
}

/** `args` are what follows `node` (script path first). */
export async function explainCommand(args: readonly string[], maxImports = 12): Promise<CommandExplanation> {
  const dir = mkdtempSync(join(tmpdir(), 'offsetctl-bench-prof-'));
  try {
    const run = await timeSpawn(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${dir}`, ...args]);
    if (run.status !== 0) throw new Error(`profiled command failed (exit ${run.status}): ${run.stderr.trim().slice(0, 300)}`);
    const profile = topPackages(readProfileDir(dir), 40);
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
    return { profile, imports };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
