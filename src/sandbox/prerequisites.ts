// Java and Maven must be on PATH: say which one is missing and how to get it, before anything runs.
import { spawnSync } from 'node:child_process';
import { SandboxError } from './errors.js';

/** Kafka 4.x brokers and Connect workers need Java 17 or newer. */
export const MIN_JAVA = 17;

export function javaMajorVersion(versionText: string): number | undefined {
  const match = /version "(\d+)(?:\.(\d+))?/.exec(versionText);
  if (!match) return undefined;
  const first = Number(match[1]);
  // Java 8 and older report "1.8.0_...".
  return first === 1 && match[2] ? Number(match[2]) : first;
}

export function checkJava(): number {
  const result = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (result.error) {
    throw new SandboxError('E_SANDBOX_PREREQ', `java was not found on PATH: install a JDK or JRE ${MIN_JAVA}+ (e.g. \`apt-get install openjdk-17-jre-headless\`) and run \`offsetctl sandbox up\` again`);
  }
  const major = javaMajorVersion(`${result.stderr}${result.stdout}`);
  if (major === undefined || major < MIN_JAVA) {
    throw new SandboxError('E_SANDBOX_PREREQ', `Kafka 4.x needs Java ${MIN_JAVA} or newer, but \`java -version\` reports ${major ?? 'an unknown version'}: put a newer java first on PATH`);
  }
  return major;
}

export function checkMaven(): void {
  const result = spawnSync('mvn', ['-v'], { encoding: 'utf8' });
  if (result.error || result.status !== 0) {
    throw new SandboxError('E_SANDBOX_PREREQ', 'mvn (Apache Maven) was not found on PATH: the sandbox downloads the Kafka jars from Maven Central with it; install it (e.g. `apt-get install maven`) and run `offsetctl sandbox up` again');
  }
}
