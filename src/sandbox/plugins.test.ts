// Real parts: none (the code under test, in this process).
import * as assert from 'node:assert/strict';
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { writeSandboxConfig } from './launch.js';
import { sandboxAssets, sandboxLayout } from './layout.js';
import { missingPlugins } from './plugin-start.js';
import {
  fingerprint, formatCoordinates, parseCoordinates, parsePluginArg, parsePluginArgs, pluginCoordinates, pluginDir, pluginProperties, pluginResolved, workerHeap,
  type LoadedPlugin,
} from './plugins.js';

test('coordinates: group:artifact:version[:type[:classifier]], jar by default; anything else is not coordinates', () => {
  assert.deepEqual(parseCoordinates('io.debezium:debezium-connector-postgres:3.6.1.Final:tar.gz:plugin'),
    { groupId: 'io.debezium', artifactId: 'debezium-connector-postgres', version: '3.6.1.Final', type: 'tar.gz', classifier: 'plugin' });
  assert.deepEqual(parseCoordinates('org.apache.iceberg:iceberg-kafka-connect:1.12.0'),
    { groupId: 'org.apache.iceberg', artifactId: 'iceberg-kafka-connect', version: '1.12.0', type: 'jar' });
  for (const bad of ['debezium', 'a:b', 'a:b:c:d:e:f', 'a::1.0', 'a:b:1.0:war', 'a:b:1 0', 'a/b:c:1']) assert.equal(parseCoordinates(bad), undefined, bad);
  for (const text of ['a.b:c:1.0', 'a.b:c:1.0:zip', 'a.b:c:1.0:tar.gz:plugin', 'a.b:c:1.0:jar:all']) {
    assert.equal(formatCoordinates(parseCoordinates(text) ?? assert.fail(text)), text);
  }
});

test('a known plugin name means its measured coordinates; coordinates name the plugin by artifact', () => {
  assert.deepEqual(pluginCoordinates(parsePluginArg('debezium-postgres')), ['io.debezium:debezium-connector-postgres:3.6.1.Final:tar.gz:plugin']);
  // 3.6.1.Final of the JDBC sink is not on Maven Central.
  assert.deepEqual(pluginCoordinates(parsePluginArg('debezium-jdbc-sink')), ['io.debezium:debezium-connector-jdbc:3.6.0.Final:tar.gz:plugin']);
  const iceberg = parsePluginArg('iceberg-sink');
  assert.equal(iceberg.source.kind, 'pom');
  assert.ok(pluginCoordinates(iceberg).includes('org.apache.iceberg:iceberg-kafka-connect:1.12.0'));
  assert.ok(pluginCoordinates(iceberg).includes('org.apache.hadoop:hadoop-common:3.4.1'));
  const mysql = parsePluginArg('io.debezium:debezium-connector-mysql:3.6.1.Final:tar.gz:plugin');
  assert.equal(mysql.name, 'debezium-connector-mysql');
  assert.equal(mysql.source.kind, 'archive');
  const jar = parsePluginArg('io.aiven:some-connector:1.0');
  assert.equal(jar.name, 'some-connector');
  assert.equal(jar.source.kind, 'pom');
});

test('a bad --plugin is refused with the names and the coordinates shape (E_USAGE: exit 2)', () => {
  assert.throws(() => parsePluginArg('debezium'), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'E_USAGE');
    assert.match(err.message, /--plugin "debezium"/);
    assert.match(err.message, /debezium-postgres, debezium-jdbc-sink, iceberg-sink/);
    assert.match(err.message, /group:artifact:version\[:type\[:classifier\]\]/);
    return true;
  });
  // The same plugin twice is one plugin; two different ones under one folder name are refused.
  assert.equal(parsePluginArgs(['iceberg-sink', 'iceberg-sink']).length, 1);
  assert.throws(() => parsePluginArgs(['a.b:conn:1.0', 'a.b:conn:2.0']), /two plugins named conn/);
});

test('each plugin folder is one plugin.path entry; workers get 1 GB heaps only with plugins', () => {
  const plugins: LoadedPlugin[] = [
    { name: 'debezium-postgres', coordinates: ['x'], dir: '/s/plugins/debezium-postgres' },
    { name: 'iceberg-sink', coordinates: ['y'], dir: '/s/plugins/iceberg-sink' },
  ];
  assert.match(pluginProperties(plugins), /^plugin\.path=\/s\/plugins\/debezium-postgres,\/s\/plugins\/iceberg-sink$/m);
  assert.equal(pluginProperties([]), '');
  assert.equal(workerHeap(plugins), '1g');
  assert.equal(workerHeap([]), '512m');
  assert.equal(workerHeap(undefined), '512m');
});

test('rendered worker properties carry plugin.path (with service_load discovery) and only when plugins are loaded', () => {
  const layout = sandboxLayout(mkdtempSync(join(tmpdir(), 'offsetctl-plugins-')));
  const ports = { broker: 19092, controller: 19093, workers: [18083, 18084], secondWorkers: [18085] };
  const plugins: LoadedPlugin[] = [{ name: 'debezium-postgres', coordinates: ['x'], dir: pluginDir(layout, 'debezium-postgres') }];
  const files = writeSandboxConfig(sandboxAssets(), layout, ports, '4.4.0', plugins);
  assert.equal(files.workerHeap, '1g');
  for (const file of [...files.workers, ...files.secondWorkers]) {
    const text = readFileSync(file, 'utf8');
    assert.match(text, new RegExp(`^plugin\\.path=${pluginDir(layout, 'debezium-postgres').replace(/[.]/g, '\\.')}$`, 'm'));
    assert.match(text, /^plugin\.discovery=service_load$/m);
    assert.equal(text.match(/^plugin\.path=/gm)?.length, 1);
  }
  // Re-rendered on every up: a later start without plugins has no plugin.path left over.
  const plain = writeSandboxConfig(sandboxAssets(), layout, ports, '4.4.0');
  assert.equal(plain.workerHeap, '512m');
  for (const file of plain.workers) assert.doesNotMatch(readFileSync(file, 'utf8'), /^plugin\.path=/m);
});

test('a cached plugin counts as resolved only with a marker of the same coordinates', () => {
  const layout = sandboxLayout(mkdtempSync(join(tmpdir(), 'offsetctl-plugins-')));
  const spec = parsePluginArg('debezium-postgres');
  assert.equal(pluginResolved(layout, spec, sandboxAssets()), false);
  mkdirSync(pluginDir(layout, spec.name), { recursive: true });
  writeFileSync(join(pluginDir(layout, spec.name), '.offsetctl-plugin.json'), JSON.stringify({ fingerprint: 'something else' }));
  assert.equal(pluginResolved(layout, spec, sandboxAssets()), false);
});

test('a running sandbox lacks a plugin when it does not load it, or loads other coordinates under its name', () => {
  const wanted = parsePluginArgs(['debezium-postgres', 'iceberg-sink']);
  const loaded: LoadedPlugin[] = [{ name: 'debezium-postgres', coordinates: pluginCoordinates(parsePluginArg('debezium-postgres')), dir: '/d' }];
  assert.deepEqual(missingPlugins(loaded, wanted).map((p) => p.name), ['iceberg-sink']);
  assert.deepEqual(missingPlugins(undefined, wanted).map((p) => p.name), ['debezium-postgres', 'iceberg-sink']);
  const older: LoadedPlugin = { ...loaded[0] as LoadedPlugin, coordinates: ['io.debezium:debezium-connector-postgres:3.0.0.Final:tar.gz:plugin'] };
  assert.deepEqual(missingPlugins([older], wanted.slice(0, 1)).map((p) => p.name), ['debezium-postgres']);
  assert.deepEqual(missingPlugins(loaded, []), []);
});

test('a marker with the same coordinates and pom skips Maven; a changed pom makes the plugin fetched again', () => {
  const layout = sandboxLayout(mkdtempSync(join(tmpdir(), 'offsetctl-plugins-')));
  const assets = mkdtempSync(join(tmpdir(), 'offsetctl-assets-'));
  cpSync(join(sandboxAssets(), 'plugins'), join(assets, 'plugins'), { recursive: true });
  const spec = parsePluginArg('iceberg-sink');
  mkdirSync(pluginDir(layout, spec.name), { recursive: true });
  writeFileSync(join(pluginDir(layout, spec.name), '.offsetctl-plugin.json'), JSON.stringify({ fingerprint: fingerprint(spec, assets) }));
  assert.equal(pluginResolved(layout, spec, assets), true);
  appendFileSync(join(assets, 'plugins', 'iceberg-sink', 'pom.xml'), '<!-- changed -->\n');
  assert.equal(pluginResolved(layout, spec, assets), false);
});
