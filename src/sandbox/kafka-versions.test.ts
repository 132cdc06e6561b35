// Real parts: none (the code under test, in this process).
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ALL_KAFKA_VERSIONS, CI_KAFKA_VERSIONS, DEFAULT_KAFKA_VERSION, checkSandboxKafkaVersion, compareKafkaVersions, kraftQuorum, needsAppInfoShim, pluginVersionFor } from './kafka-versions.js';
import { sandboxAssets } from './layout.js';

test('versions compare numerically, not as text', () => {
  assert.ok(compareKafkaVersions('3.10.0', '3.9.2') > 0);
  assert.ok(compareKafkaVersions('4.0.0', '3.9.9') > 0);
  assert.equal(compareKafkaVersions('3.6.2', '3.6.2'), 0);
  assert.ok(compareKafkaVersions('3.6.0-SNAPSHOT', '3.6.0') === 0);
  assert.ok(Number.isNaN(compareKafkaVersions('four', '3.6.0')));
});

test('--kafka-version: a release from 3.6.0 on, anything else refused with E_SANDBOX_VERSION', () => {
  assert.equal(checkSandboxKafkaVersion('3.6.0'), '3.6.0');
  assert.equal(checkSandboxKafkaVersion('4.4.0'), '4.4.0');
  assert.throws(() => checkSandboxKafkaVersion('3.5.2'), (e: Error & { code?: string }) => e.code === 'E_SANDBOX_VERSION' && /3\.6\.0 or newer/.test(e.message));
  assert.throws(() => checkSandboxKafkaVersion('latest'), (e: Error & { code?: string }) => e.code === 'E_SANDBOX_VERSION' && /release number/.test(e.message));
  assert.throws(() => checkSandboxKafkaVersion('4.4'), (e: Error & { code?: string }) => e.code === 'E_SANDBOX_VERSION');
});

test('the quorum switches at 3.9 (KIP-853) and only 3.9+ is formatted --standalone', () => {
  assert.deepEqual(kraftQuorum('3.8.1', 9, 8), { property: 'controller.quorum.voters=1@127.0.0.1:9', formatArgs: [], advertised: 'PLAINTEXT://127.0.0.1:8' });
  assert.deepEqual(kraftQuorum('3.9.0', 9, 8), { property: 'controller.quorum.bootstrap.servers=127.0.0.1:9', formatArgs: ['--standalone'], advertised: 'PLAINTEXT://127.0.0.1:8,CONTROLLER://127.0.0.1:9' });
  assert.equal(needsAppInfoShim('4.4.0'), true);
  assert.equal(needsAppInfoShim('4.3.1'), false);
  assert.equal(needsAppInfoShim('3.9.2'), false);
});

test('the pom defaults are the default version, with the plugin version the table gives for it', () => {
  const pom = readFileSync(join(sandboxAssets(), 'pom.xml'), 'utf8');
  assert.equal(/<kafka\.version>([^<]+)</.exec(pom)?.[1], DEFAULT_KAFKA_VERSION);
  assert.equal(/<kafka\.plugins\.version>([^<]+)</.exec(pom)?.[1], pluginVersionFor(DEFAULT_KAFKA_VERSION));
  assert.equal(pluginVersionFor('3.6.2'), '3.6.2');
  assert.ok(CI_KAFKA_VERSIONS.every((v) => (ALL_KAFKA_VERSIONS as readonly string[]).includes(v)));
  assert.equal(ALL_KAFKA_VERSIONS.at(-1), DEFAULT_KAFKA_VERSION);
});
