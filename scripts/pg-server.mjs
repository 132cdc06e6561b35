#!/usr/bin/env node
// The tests' throwaway PostgreSQL server, for `.ci/run` (one server for every job) and by hand:
//   node scripts/pg-server.mjs start <file>   starts one on a free loopback port and writes the
//                                             OFFSETCTL_TEST_PG value (JSON) into <file>
//   node scripts/pg-server.mjs stop <file>    stops the server <file> describes
// The module behind it (src/sandbox/postgres-server.ts, built to dist/) is the one scripts/test.mjs,
// the tests and `offsetctl sandbox up --postgres` use.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const { startPgServer, stopPgServer, describeServer, THROWAWAY_SETTINGS } = await import(join(root, 'dist', 'src', 'sandbox', 'postgres-server.js'));
const [verb, file] = process.argv.slice(2);
if (verb === 'start' && file) {
  const server = await startPgServer({ settings: THROWAWAY_SETTINGS });
  writeFileSync(file, describeServer(server), { mode: 0o600 });
  console.log(`PostgreSQL for the tests on 127.0.0.1:${server.port} (${server.dir})`);
} else if (verb === 'stop' && file) {
  const server = JSON.parse(readFileSync(file, 'utf8'));
  stopPgServer(server, 'fast');
  rmSync(server.dir, { recursive: true, force: true });
  rmSync(file, { force: true });
} else {
  console.error('usage: node scripts/pg-server.mjs start|stop <file>');
  process.exit(2);
}
