import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { resolveSandboxDir, sandboxAssets } from './layout.js';

test('the sandbox folder: --dir, then OFFSETCTL_SANDBOX_DIR, then XDG_CACHE_HOME, then ~/.cache', () => {
  assert.equal(resolveSandboxDir('/tmp/explicit', { OFFSETCTL_SANDBOX_DIR: '/tmp/env' }), '/tmp/explicit');
  assert.equal(resolveSandboxDir(undefined, { OFFSETCTL_SANDBOX_DIR: '/tmp/env', XDG_CACHE_HOME: '/tmp/xdg' }), '/tmp/env');
  assert.equal(resolveSandboxDir(undefined, { XDG_CACHE_HOME: '/tmp/xdg' }), '/tmp/xdg/offsetctl/sandbox');
  assert.match(resolveSandboxDir(undefined, {}), /\/\.cache\/offsetctl\/sandbox$/);
});

test('the pom and the templates are found from the compiled code', () => {
  for (const name of ['pom.xml', 'server.properties.template', 'worker.properties.template', 'log4j2.properties.template']) {
    assert.ok(existsSync(join(sandboxAssets(), name)), name);
  }
});
