// The running sandbox, as `offsetctl sandbox status --output json` reports it. Integration tests
// call getSandbox() first; when nothing runs the test fails with what to do.
//
// Test lanes: scripts/test.mjs runs integration files in lanes, one file at a time per lane, and
// tells each file its lane in OFFSETCTL_LANE. Lane 1 (also a file run alone) uses the sandbox's
// main Connect cluster, lane k its `lane-k` cluster (`sandbox up --lanes N`): getSandbox().connect
// and .bootstrap are that cluster's, so a file's connectors, rebalances and REST writes never
// reach a file of another lane. The second and the other cluster belong to lane 1 (the runner
// keeps the files that use them there); asking for them from another lane is an error.
import { laneCluster, MAX_LANES } from '../../src/sandbox/index.js';
import { runCli } from './cli.js';
import { runInProcess } from './in-process.js';

export interface SandboxClusterEndpoints {
  name: string;
  connect: string[];
  bootstrap: string;
  kafkaClusterId?: string;
}

export interface SandboxEndpoints {
  /** This lane's Connect cluster's workers (the main cluster's in lane 1). */
  connect: string[];
  bootstrap: string;
  /** This lane's Connect cluster: `main`, or `lane-<k>`. */
  cluster: string;
  /** Every running Connect cluster: main, and second / other when started. */
  clusters: SandboxClusterEndpoints[];
  /** The sandbox's folder. */
  dir: string;
}

let cached: Promise<SandboxEndpoints> | undefined;

/** The lane this test process runs in (OFFSETCTL_LANE, set by scripts/test.mjs); 1 when unset. */
export function testLane(): number {
  const raw = process.env.OFFSETCTL_LANE;
  if (raw === undefined || raw === '') return 1;
  const lane = Number(raw);
  if (!Number.isInteger(lane) || lane < 1 || lane > MAX_LANES) throw new Error(`OFFSETCTL_LANE must be a whole number from 1 to ${MAX_LANES}, got "${raw}"`);
  return lane;
}

/** Refuses what only lane 1 may do (the second and the other cluster are its own). */
export function requireLaneOne(what: string): void {
  const lane = testLane();
  if (lane !== 1) throw new Error(`${what} belongs to test lane 1, and this file runs in lane ${lane}: scripts/test.mjs must keep it in lane 1 (LANE_ONE)`);
}

export function getSandbox(): Promise<SandboxEndpoints> {
  // A failed read is not cached: the next test asks again.
  cached ??= readSandbox().catch((err: unknown) => {
    cached = undefined;
    throw err;
  });
  return cached;
}

async function readSandbox(): Promise<SandboxEndpoints> {
  const cli = await runInProcess(['sandbox', 'status', '--output', 'json']);
  let status: { running?: boolean; connect?: string[]; bootstrap?: string | null; clusters?: SandboxClusterEndpoints[]; dir?: string };
  try {
    status = JSON.parse(cli.stdout) as typeof status;
  } catch {
    throw new Error(`\`offsetctl sandbox status --output json\` printed no JSON (exit ${cli.status}): ${cli.stdout} ${cli.stderr}`);
  }
  // Judged by this lane's cluster: another lane's file may be adding or stopping a cluster of its own.
  const lane = testLane();
  const own = (status.clusters ?? []).find((c) => c.name === laneCluster(lane));
  if (!own?.connect.length || !own.bootstrap) {
    const start = lane === 1 ? '`bin/offsetctl sandbox up`' : `\`bin/offsetctl sandbox up --lanes ${lane}\``;
    const where = status.dir ? ` (${status.dir})` : '';
    throw new Error(`the sandbox's Connect cluster ${laneCluster(lane)} (test lane ${lane}) is not running${where}: `
      + `start it with ${start} (npm test does this itself), then run the integration tests again`);
  }
  return { connect: own.connect, bootstrap: own.bootstrap, cluster: own.name, clusters: status.clusters ?? [], dir: status.dir ?? '' };
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
  requireLaneOne('the second Connect cluster');
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
