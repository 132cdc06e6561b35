// The running sandbox, as `offsetctl sandbox status --output json` reports it. Integration tests
// call getSandbox() first; when nothing runs the test fails with what to do.
import { runCli } from './cli.js';

export interface SandboxEndpoints {
  connect: string[];
  bootstrap: string;
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
  let status: { running?: boolean; connect?: string[]; bootstrap?: string | null; dir?: string };
  try {
    status = JSON.parse(cli.stdout) as typeof status;
  } catch {
    throw new Error(`\`offsetctl sandbox status --output json\` printed no JSON (exit ${cli.status}): ${cli.stdout} ${cli.stderr}`);
  }
  if (status.running !== true || !status.connect?.length || !status.bootstrap) {
    throw new Error(`the sandbox Kafka cluster is not running${status.dir ? ` (${status.dir})` : ''}: start it with \`bin/offsetctl sandbox up\` (npm test does this itself), then run the integration tests again`);
  }
  return { connect: status.connect, bootstrap: status.bootstrap };
}
