// CPU profiles that explain a missed target, taken by `node --cpu-prof` in a child process (an
// in-process inspector session distorts loops of 100 µs steps) and folded into "where the time
// went" tables by function and by package.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { repoRoot } from './figure.js';

export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }>;
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileLine {
  name: string;
  selfMs: number;
  share: number;
}

/** Reads the one `.cpuprofile` that `node --cpu-prof --cpu-prof-dir=<dir>` wrote. */
export function readProfileDir(dir: string): CpuProfile {
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no .cpuprofile in ${dir}`);
  return JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
}

/** Self time per function, largest first. */
export function topFunctions(profile: CpuProfile, limit: number): ProfileLine[] {
  return fold(
    profile,
    (frame) => (frame.url ? `${frame.functionName || '(anonymous)'} ${describeUrl(frame.url)}:${frame.lineNumber + 1}` : frame.functionName || '(anonymous)'),
    limit,
  );
}

/** Self time per package (node_modules/<pkg>), per project file, or per runtime bucket. */
export function topPackages(profile: CpuProfile, limit: number): ProfileLine[] {
  return fold(profile, (frame) => (frame.url ? describeUrl(frame.url) : frame.functionName), limit);
}

function fold(profile: CpuProfile, keyOf: (frame: CpuProfile['nodes'][number]['callFrame']) => string, limit: number): ProfileLine[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const totals = new Map<string, number>();
  let all = 0;
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id);
    const us = profile.timeDeltas[i] ?? 0;
    if (!frame || us <= 0) return;
    all += us;
    const key = keyOf(frame);
    totals.set(key, (totals.get(key) ?? 0) + us);
  });
  return [...totals.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([name, us]) => ({ name, selfMs: Math.round(us / 10) / 100, share: all > 0 ? Math.round((us / all) * 1000) / 1000 : 0 }));
}

function describeUrl(url: string): string {
  if (!url) return '';
  if (url.startsWith('node:')) return url;
  const path = url.startsWith('file:') ? fileURLToPath(url) : url;
  const nm = path.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = path.slice(nm + 'node_modules/'.length).split('/');
    return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1] ?? ''}` : (rest[0] ?? path);
  }
  return path.startsWith(repoRoot) ? relative(repoRoot, path) : path;
}
