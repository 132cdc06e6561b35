// The Kafka jars: Maven copies sandbox/pom.xml's dependencies for one Kafka version into
// <dir>/lib/<version> once; a marker with the pom's hash and the versions lets later `up`s skip
// Maven entirely (and re-resolve when the pom changes). Each version keeps its own folder, so
// switching versions back and forth downloads nothing twice.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { SandboxError } from './errors.js';
import type { SandboxLayout } from './layout.js';
import { needsAppInfoShim, pluginVersionFor } from './kafka-versions.js';
import { checkMaven } from './prerequisites.js';

const MARKER = '.resolved';

function resolvedMarker(pomText: string, kafkaVersion: string): string {
  return createHash('sha256').update(pomText).update(`\0${kafkaVersion}\0${pluginVersionFor(kafkaVersion)}`).digest('hex');
}

/** The folder holding the jars of one Kafka version. */
export function libDir(layout: SandboxLayout, kafkaVersion: string): string {
  return join(layout.lib, kafkaVersion);
}

export function jarsResolved(layout: SandboxLayout, pomFile: string, kafkaVersion: string): boolean {
  const marker = join(libDir(layout, kafkaVersion), MARKER);
  return existsSync(marker) && readFileSync(marker, 'utf8').trim() === resolvedMarker(readFileSync(pomFile, 'utf8'), kafkaVersion);
}

/** Makes sure <dir>/lib/<version> holds the jars of `pomFile` for that version; returns true when Maven had to run. */
export async function resolveJars(layout: SandboxLayout, pomFile: string, kafkaVersion: string, progress: (line: string) => void): Promise<boolean> {
  if (jarsResolved(layout, pomFile, kafkaVersion)) return false;
  checkMaven();
  const pomText = readFileSync(pomFile, 'utf8');
  const lib = libDir(layout, kafkaVersion);
  // A half-copied folder from an interrupted run could mix versions: start it over.
  rmSync(lib, { recursive: true, force: true });
  mkdirSync(lib, { recursive: true });
  const plugins = pluginVersionFor(kafkaVersion);
  progress(`resolving Kafka ${kafkaVersion} jars${plugins !== kafkaVersion ? ` (FileStream/MirrorMaker/basic-auth plugins ${plugins}: Maven Central has no ${kafkaVersion} of them)` : ''} with Maven into ${lib} (first run of this version only)`);
  const output = await runMaven(['-q', '-B', '-f', pomFile, 'dependency:copy-dependencies', `-Dkafka.version=${kafkaVersion}`, `-Dkafka.plugins.version=${plugins}`, `-DoutputDirectory=${lib}`], layout.dir);
  if (output.status !== 0) {
    throw new SandboxError('E_SANDBOX_JARS', `Maven could not resolve the Kafka ${kafkaVersion} jars (exit ${output.status}). Check that Maven Central is reachable (proxy settings in ~/.m2/settings.xml) and that ${kafkaVersion} is a Kafka release. Maven said:\n${output.text.split('\n').slice(-25).join('\n')}`);
  }
  const jars = readdirSync(lib).filter((f) => f.endsWith('.jar'));
  if (!jars.some((f) => f.startsWith('connect-runtime-'))) {
    throw new SandboxError('E_SANDBOX_JARS', `Maven finished but ${lib} has no connect-runtime jar: delete the folder and run \`offsetctl sandbox up\` again`);
  }
  if (needsAppInfoShim(kafkaVersion)) await buildAppInfoShim(lib, kafkaVersion, dirname(pomFile), progress);
  writeFileSync(join(lib, MARKER), resolvedMarker(pomText, kafkaVersion) + '\n');
  return true;
}

/** Compiles sandbox/compat/AppInfoParser.java against the version's kafka-clients into a jar in `lib`. */
async function buildAppInfoShim(lib: string, kafkaVersion: string, assets: string, progress: (line: string) => void): Promise<void> {
  progress(`compiling the AppInfoParser forwarder the ${pluginVersionFor(kafkaVersion)} plugins need on Kafka ${kafkaVersion} (sandbox/compat)`);
  const build = join(lib, '.compat-build');
  rmSync(build, { recursive: true, force: true });
  mkdirSync(build, { recursive: true });
  const javac = await runTool('javac', ['-nowarn', '-d', build, '-cp', join(lib, `kafka-clients-${kafkaVersion}.jar`), join(assets, 'compat', 'AppInfoParser.java')], lib);
  const jar = javac.status === 0 ? await runTool('jar', ['cf', join(lib, 'offsetctl-sandbox-compat.jar'), '-C', build, '.'], lib) : javac;
  rmSync(build, { recursive: true, force: true });
  if (jar.status !== 0) {
    throw new SandboxError('E_SANDBOX_JARS', `Kafka ${kafkaVersion} needs a small compatibility class for its plugins, and compiling it failed (exit ${jar.status}; a JDK with javac and jar is needed, or pick --kafka-version ${pluginVersionFor(kafkaVersion)}):\n${jar.text.split('\n').slice(-15).join('\n')}`);
  }
}

function runMaven(args: string[], cwd: string): Promise<{ status: number; text: string }> {
  return runTool('mvn', args, cwd);
}

export function runTool(command: string, args: string[], cwd: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
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
