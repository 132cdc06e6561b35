// The running sandbox, as `offsetctl sandbox status --output json` reports it. Integration tests
// call getSandbox() first; when nothing runs the test fails with what to do.
import { runCli } from './cli.js';

export interface SandboxClusterEndpoints {
  name: string;
  connect: string[];
  bootstrap: string;
  kafkaClusterId?: string;
}

export interface SandboxEndpoints {
  connect: string[];
  bootstrap: string;
  /** Every running Connect cluster: main, and second / other when started. */
  clusters: SandboxClusterEndpoints[];
  /** The sandbox's folder. */
  dir: string;
}

let cached: Promise<SandboxEndpoints> | undefined;

export function getSandbox(): Promise<SandboxEndpoints> {
  // A failed read is not cached: the next test asks again.
  cached ??= readSandbox().catch((err: unknown) => {
    cached = undefined;
    throw err;
  });
  return cached;
}

async function readSandbox(): Promise<SandboxEndpoints> {
  const cli = await runCli(['sandbox', 'status', '--output', 'json']);
  let status: { running?: boolean; connect?: string[]; bootstrap?: string | null; clusters?: SandboxClusterEndpoints[]; dir?: string };
  try {
    status = JSON.parse(cli.stdout) as typeof status;
  } catch {
    throw new Error(`\`offsetctl sandbox status --output json\` printed no JSON (exit ${cli.status}): ${cli.stdout} ${cli.stderr}`);
  }
  if (status.running !== true || !status.connect?.length || !status.bootstrap) {
    throw new Error(`the sandbox Kafka cluster is not running${status.dir ? ` (${status.dir})` : ''}: start it with \`bin/offsetctl sandbox up\` (npm test does this itself), then run the integration tests again`);
  }
  return { connect: status.connect, bootstrap: status.bootstrap, clusters: status.clusters ?? [], dir: status.dir ?? '' };
}

/** Forgets what was read, so the next getSandbox() asks again (after a test added a cluster). */
export function forgetSandbox(): void {
  cached = undefined;
}

/**
 * The sandbox's second Connect cluster (`sandbox up --clusters 2`, as npm test and CI start it):
 * added here when the running sandbox lacks it (it is then left running for the next tests).
 */
export async function secondCluster(): Promise<SandboxClusterEndpoints> {
  let found = (await getSandbox()).clusters.find((c) => c.name === 'second');
  if (!found) {
    const up = await runCli(['sandbox', 'up', '--clusters', '2'], { timeoutMs: 400_000 });
    if (up.status !== 0) throw new Error(`could not add the second Connect cluster (exit ${up.status}): ${up.stderr}`);
    forgetSandbox();
    found = (await getSandbox()).clusters.find((c) => c.name === 'second');
  }
  if (!found) throw new Error('the sandbox has no second Connect cluster after `sandbox up --clusters 2`');
  return found;
}
