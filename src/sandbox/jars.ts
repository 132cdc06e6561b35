// The Kafka jars: Maven copies sandbox/pom.xml's dependencies into <dir>/lib once; a marker with
// the pom's hash lets later `up`s skip Maven entirely (and re-resolve when the pom changes).
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SandboxError } from './errors.js';
import type { SandboxLayout } from './layout.js';
import { checkMaven } from './prerequisites.js';

const MARKER = '.resolved';

export function kafkaVersionOf(pomText: string): string {
  return /<kafka\.version>([^<]+)<\/kafka\.version>/.exec(pomText)?.[1] ?? 'unknown';
}

function pomHash(pomText: string): string {
  return createHash('sha256').update(pomText).digest('hex');
}

export function jarsResolved(layout: SandboxLayout, pomFile: string): boolean {
  const marker = join(layout.lib, MARKER);
  return existsSync(marker) && readFileSync(marker, 'utf8').trim() === pomHash(readFileSync(pomFile, 'utf8'));
}

/** Makes sure <dir>/lib holds the jars of `pomFile`; returns true when Maven had to run. */
export async function resolveJars(layout: SandboxLayout, pomFile: string, progress: (line: string) => void): Promise<boolean> {
  if (jarsResolved(layout, pomFile)) return false;
  checkMaven();
  const pomText = readFileSync(pomFile, 'utf8');
  // A half-copied folder from an interrupted run could mix versions: start it over.
  rmSync(layout.lib, { recursive: true, force: true });
  mkdirSync(layout.lib, { recursive: true });
  progress(`resolving Kafka ${kafkaVersionOf(pomText)} jars with Maven into ${layout.lib} (first run only)`);
  const output = await runMaven(['-q', '-B', '-f', pomFile, 'dependency:copy-dependencies', `-DoutputDirectory=${layout.lib}`], layout.dir);
  if (output.status !== 0) {
    throw new SandboxError('E_SANDBOX_JARS', `Maven could not resolve the Kafka jars (exit ${output.status}). Check that Maven Central is reachable (proxy settings in ~/.m2/settings.xml). Maven said:\n${output.text.split('\n').slice(-25).join('\n')}`);
  }
  const jars = readdirSync(layout.lib).filter((f) => f.endsWith('.jar'));
  if (!jars.some((f) => f.startsWith('connect-runtime-'))) {
    throw new SandboxError('E_SANDBOX_JARS', `Maven finished but ${layout.lib} has no connect-runtime jar: delete the folder and run \`offsetctl sandbox up\` again`);
  }
  writeFileSync(join(layout.lib, MARKER), pomHash(pomText) + '\n');
  return true;
}

function runMaven(args: string[], cwd: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve) => {
    const child = spawn('mvn', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    const collect = (chunk: Buffer): void => {
      // Keep the tail only: Maven can be chatty when it fails.
      text = (text + chunk.toString('utf8')).slice(-64 * 1024);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.on('error', (err) => resolve({ status: 127, text: String(err) }));
    child.on('close', (code) => resolve({ status: code ?? 1, text }));
  });
}
