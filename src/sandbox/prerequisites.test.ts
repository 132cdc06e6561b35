// Real parts: none (the code under test, in this process).
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { javaMajorVersion } from './prerequisites.js';

test('the Java major version is read from `java -version` in both numbering schemes', () => {
  assert.equal(javaMajorVersion('openjdk version "17.0.15" 2025-04-15'), 17);
  assert.equal(javaMajorVersion('openjdk version "21" 2023-09-19'), 21);
  assert.equal(javaMajorVersion('java version "1.8.0_392"'), 8);
  assert.equal(javaMajorVersion('no java here'), undefined);
});

test('a missing java or mvn is refused with E_SANDBOX_PREREQ and says what to install', async (t) => {
  const { existsSync, mkdtempSync, symlinkSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { checkJava, checkMaven } = await import('./prerequisites.js');
  const saved = process.env['PATH'];
  const onlyJava = mkdtempSync(join(tmpdir(), 'offsetctl-path-'));
  const java = (process.env['PATH'] ?? '').split(':').map((d) => join(d, 'java')).find((f) => existsSync(f));
  if (!java) return t.skip('no java on PATH here');
  symlinkSync(java, join(onlyJava, 'java'));
  try {
    process.env['PATH'] = join(onlyJava, 'nothing-here');
    assert.throws(() => checkJava(), (err: Error & { code?: string }) => err.code === 'E_SANDBOX_PREREQ' && /java was not found on PATH/.test(err.message));
    process.env['PATH'] = onlyJava;
    assert.ok(checkJava() >= 17);
    assert.throws(() => checkMaven(), (err: Error & { code?: string }) => err.code === 'E_SANDBOX_PREREQ' && /mvn \(Apache Maven\) was not found/.test(err.message));
  } finally {
    process.env['PATH'] = saved;
  }
});
