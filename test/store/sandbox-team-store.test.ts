// `offsetctl sandbox up --postgres` gives a newcomer a team store to try "two operators" with:
// a PostgreSQL server in the sandbox folder, the database owned by a NOLOGIN team role, and two
// logins whose passwords live only in a pgpass file. This starts that store in a folder of its
// own (no Kafka needed: the team store is independent of the broker), signs in as both operators
// through the CLI, and checks the passwords never show and a second `up` reuses the server.
// Real parts: spawns the CLI.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findPgBin, teamStoreDown, teamStoreOfUp, teamStoreStatus, teamStoreUp } from '../../src/sandbox/index.js';
import { runCli } from '../support/cli.js';

test('the sandbox team store: two operator logins from its pgpass file, passwords never shown, reused when running, forgotten on request', { timeout: 120_000 }, async (t) => {
  assert.ok(findPgBin(), 'PostgreSQL is not installed (apt-get install postgresql): .ci/run installs it');
  const dir = mkdtempSync(join(tmpdir(), 'offsetctl-sandbox-pg-'));
  t.after(() => {
    teamStoreDown(dir, true);
    rmSync(dir, { recursive: true, force: true });
  });
  const team = await teamStoreUp(dir);
  assert.equal(team.reused, false);
  assert.match(team.urls.alice, /^postgres:\/\/alice@127\.0\.0\.1:\d+\/offsetctl$/);
  assert.equal(statSync(team.pgpass).mode & 0o777, 0o600, 'the passwords file is readable by its owner only');
  const passwords = readFileSync(team.pgpass, 'utf8').trim().split('\n').map((line) => line.split(':').at(-1)!);
  assert.equal(passwords.length, 3, 'alice, bob and the admin login');

  const env = { PGPASSFILE: team.pgpass, PGPASSWORD: undefined, OFFSETCTL_STORE: undefined, OFFSETCTL_STATE_DIR: join(dir, 'state') };
  // An operator may not create the tables (they belong to the owner role): the admin login migrates.
  const early = await runCli(['store', 'migrate', '--store', team.urls.alice], { env });
  assert.equal(early.status, 2, early.stdout);
  assert.match(early.stderr, /may not create tables there/);
  const admin = await runCli(['store', 'migrate', '--store', team.urls.admin], { env });
  assert.equal(admin.status, 0, admin.stderr);
  for (const [user, url] of Object.entries(team.urls)) {
    const migrate = await runCli(['store', 'migrate', '--store', url], { env });
    assert.equal(migrate.status, 0, migrate.stderr);
    const status = await runCli(['store', 'status', '--store', url, '-o', 'json'], { env });
    assert.equal(status.status, 0, status.stderr);
    const parsed = JSON.parse(status.stdout) as { backend: string; dbUser: string; locks: unknown[] };
    assert.deepEqual([parsed.backend, parsed.dbUser, parsed.locks], ['postgres', user === 'admin' ? 'offsetctl_admin' : user, []], 'each login signs in as itself');
    for (const password of passwords) {
      for (const form of [password, Buffer.from(password).toString('base64'), encodeURIComponent(password)]) {
        assert.ok(!`${migrate.stdout}${migrate.stderr}${status.stdout}${status.stderr}`.includes(form), 'a password appeared in the output');
      }
    }
  }
  // Without the pgpass file the server asks for a password: the logins are real ones. The refusal
  // ends the connection itself: it once stayed open until the server's authentication_timeout
  // (60 s), and the CLI exited only then (the 20 s limit is a hang check: SIGTERM, status 143).
  const refused = await runCli(['store', 'status', '--store', team.urls.bob], { env: { ...env, PGPASSFILE: join(dir, 'none') }, timeoutMs: 20_000 });
  assert.equal(refused.status, 2, refused.stdout);
  assert.match(refused.stderr, /PGPASSWORD|pgpass|--store-password-env/);

  // Issue 30, point 20: every later `sandbox up` (without --postgres) reports the running store, and
  // `sandbox status -o json` has it as the text does.
  assert.deepEqual((await teamStoreOfUp(dir, { start: false }))?.urls, team.urls, 'an up without --postgres still says where the team store is');
  const shown = await runCli(['sandbox', 'status', '--dir', dir, '-o', 'json'], { env });
  assert.deepEqual((JSON.parse(shown.stdout) as { teamStore: unknown }).teamStore, { running: true, urls: team.urls, pgpass: team.pgpass });

  const again = await teamStoreUp(dir);
  assert.equal(again.reused, true, 'a running team store is reused');
  assert.equal(again.port, team.port);
  assert.equal(teamStoreStatus(dir)?.running, true);
  assert.equal(teamStoreDown(dir, true), true, 'it was running and is stopped');
  assert.equal(existsSync(team.pgpass), false, 'forgetting it deletes the passwords');
  assert.equal(teamStoreStatus(dir), undefined);
  assert.equal(await teamStoreOfUp(dir, { start: false }), undefined, 'none: an up says nothing of a team store');
  assert.equal((JSON.parse((await runCli(['sandbox', 'status', '--dir', dir, '-o', 'json'], { env })).stdout) as { teamStore: unknown }).teamStore, null);
});
