#!/usr/bin/env node
// `npm run chaos`: the long chaos run (test/integration/chaos.test.ts) against the running
// sandbox, bounded in time. CI runs the same file with its short default budget (120 s).
//   --minutes <n>   time budget (default 5)
//   --seed <n>      replay the cases of an earlier run (its seed is printed and in the JSON)
//   --runs <n>      at most this many runs
//   --workers       add rebalances (a Connect worker leaves or joins mid-run): kills sandbox
//                   workers, so only with a sandbox of your own (OFFSETCTL_SANDBOX_DIR)
//   --store postgres  every command on a team store: the PostgreSQL OFFSETCTL_TEST_PG names, else
//                   a throwaway one started here; its own faults replace the state folder's
// The summary is printed and written to test-output/chaos-<seed>.json.
import { spawnSync } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '5' },
    seed: { type: 'string' },
    runs: { type: 'string' },
    workers: { type: 'boolean', default: false },
    store: { type: 'string' },
  },
});
const minutes = Number(values.minutes);
if (!Number.isFinite(minutes) || minutes <= 0) {
  console.error(`--minutes ${JSON.stringify(values.minutes)}: expected a positive number of minutes`);
  process.exit(2);
}
for (const [flag, value] of [
  ['--seed', values.seed],
  ['--runs', values.runs],
]) {
  if (value !== undefined && !/^\d+$/.test(value)) {
    console.error(`${flag} ${JSON.stringify(value)}: expected a whole number`);
    process.exit(2);
  }
}
if (values.workers && !process.env.OFFSETCTL_SANDBOX_DIR) {
  console.error('--workers kills and restarts Connect workers: point OFFSETCTL_SANDBOX_DIR at a sandbox of your own (never a shared one)');
  process.exit(2);
}
if (values.store !== undefined && values.store !== 'postgres' && values.store !== 'sqlite') {
  console.error(`--store ${JSON.stringify(values.store)}: expected postgres or sqlite`);
  process.exit(2);
}
const tsc = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], { cwd: root, stdio: 'inherit' });
if (tsc.status !== 0) process.exit(tsc.status ?? 1);
const env = {
  ...process.env,
  OFFSETCTL_CHAOS_SECONDS: String(Math.round(minutes * 60)),
  ...(values.seed !== undefined ? { OFFSETCTL_CHAOS_SEED: values.seed } : {}),
  ...(values.runs !== undefined ? { OFFSETCTL_CHAOS_RUNS: values.runs } : {}),
  ...(values.workers ? { OFFSETCTL_CHAOS_WORKERS: '1' } : {}),
  ...(values.store === 'postgres' ? { OFFSETCTL_CHAOS_STORE: 'postgres' } : {}),
};
let startedPg;
if (values.store === 'postgres' && !env.OFFSETCTL_TEST_PG) {
  const { startPgServer, describeServer, THROWAWAY_SETTINGS } = await import(join(root, 'dist', 'src', 'sandbox', 'postgres-server.js'));
  startedPg = await startPgServer({ settings: THROWAWAY_SETTINGS });
  env.OFFSETCTL_TEST_PG = describeServer(startedPg);
}
// The test's own timeout is its budget plus time for the last run and its recovery.
const r = spawnSync(process.execPath, ['--test', '--test-reporter=spec', join(root, 'dist', 'test', 'integration', 'chaos.test.js')], {
  cwd: root,
  env,
  stdio: 'inherit',
});
if (startedPg) (await import(join(root, 'dist', 'src', 'sandbox', 'postgres-server.js'))).stopPgServer(startedPg, 'fast');
process.exit(r.status ?? 1);
