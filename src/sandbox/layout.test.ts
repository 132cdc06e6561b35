// Real parts: none (the code under test, in this process).
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { resolveSandboxDir, sandboxAssets, sandboxCommand } from './layout.js';

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

test('advice names --dir unless the folder is the built-in default (issue 20, point 14)', () => {
  const fallback = resolveSandboxDir(undefined, process.env['XDG_CACHE_HOME'] ? { XDG_CACHE_HOME: process.env['XDG_CACHE_HOME'] } : {});
  assert.equal(sandboxCommand('down', fallback), 'offsetctl sandbox down');
  assert.equal(sandboxCommand('down', '/tmp/sb-x'), 'offsetctl sandbox down --dir /tmp/sb-x');
  assert.equal(sandboxCommand('up', "/tmp/my sandbox's"), "offsetctl sandbox up --dir '/tmp/my sandbox'\\''s'");
});
