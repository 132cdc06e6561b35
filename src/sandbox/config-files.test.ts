// Real parts: none (the code under test, in this process).
import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { renderTemplate } from './config-files.js';
import { writeSandboxConfig } from './launch.js';
import { sandboxAssets, sandboxLayout } from './layout.js';

test('placeholders are filled in and a missing value is an error', () => {
  assert.equal(renderTemplate('a=${x}\nb=${y}', { x: 1, y: 'two' }), 'a=1\nb=two');
  assert.throws(() => renderTemplate('a=${missing}', {}), /\$\{missing\} has no value/);
});

test('the shipped templates render completely: broker, two workers, logging', () => {
  const layout = sandboxLayout(mkdtempSync(join(tmpdir(), 'offsetctl-config-')));
  const files = writeSandboxConfig(sandboxAssets(), layout, { broker: 19092, controller: 19093, workers: [18083, 18084] }, '4.4.0');
  const server = readFileSync(files.server, 'utf8');
  assert.match(server, /^listeners=PLAINTEXT:\/\/127\.0\.0\.1:19092,CONTROLLER:\/\/127\.0\.0\.1:19093$/m);
  assert.match(server, /^group\.initial\.rebalance\.delay\.ms=0$/m);
  assert.equal(files.workers.length, 2);
  const worker2 = readFileSync(files.workers[1] ?? '', 'utf8');
  assert.match(worker2, /^listeners=http:\/\/127\.0\.0\.1:18084$/m);
  assert.match(worker2, /^bootstrap\.servers=127\.0\.0\.1:19092$/m);
  assert.match(worker2, /^offset\.flush\.interval\.ms=1000$/m);
  for (const file of [files.server, ...files.workers, files.log4j]) assert.doesNotMatch(readFileSync(file, 'utf8'), /\$\{/);
});

test('the broker quorum follows the version: bootstrap servers from 3.9, a static voter list before', () => {
  const layout = sandboxLayout(mkdtempSync(join(tmpdir(), 'offsetctl-config-')));
  const ports = { broker: 19092, controller: 19093, workers: [18083] };
  const newer = readFileSync(writeSandboxConfig(sandboxAssets(), layout, ports, '3.9.1').server, 'utf8');
  assert.match(newer, /^controller\.quorum\.bootstrap\.servers=127\.0\.0\.1:19093$/m);
  assert.doesNotMatch(newer, /^controller\.quorum\.voters/m);
  const older = readFileSync(writeSandboxConfig(sandboxAssets(), layout, ports, '3.6.2').server, 'utf8');
  assert.match(older, /^controller\.quorum\.voters=1@127\.0\.0\.1:19093$/m);
  assert.doesNotMatch(older, /^controller\.quorum\.bootstrap/m);
});

test('the second and the other cluster differ from the main one in group.id and internal topics; the other uses its own broker', () => {
  const layout = sandboxLayout(mkdtempSync(join(tmpdir(), 'offsetctl-config-')));
  const files = writeSandboxConfig(sandboxAssets(), layout, {
    broker: 19092, controller: 19093, workers: [18083, 18084], secondWorkers: [18085, 18086],
    other: { broker: 29092, controller: 29093, workers: [28083] },
  }, '4.4.0');
  const read = (file: string | undefined): string => readFileSync(file ?? '', 'utf8');
  const main = read(files.workers[0]);
  const second = read(files.secondWorkers[1]);
  const other = read(files.otherWorkers[0]);
  assert.match(main, /^group\.id=offsetctl-sandbox$/m);
  assert.match(main, /^offset\.storage\.topic=offsetctl-sandbox-offsets$/m);
  assert.match(second, /^group\.id=offsetctl-sandbox-second$/m);
  for (const kind of ['configs', 'offsets', 'status']) assert.match(second, new RegExp(`^\\w+\\.storage\\.topic=offsetctl-sandbox-second-${kind}$`, 'm'));
  assert.match(second, /^bootstrap\.servers=127\.0\.0\.1:19092$/m, 'the second cluster shares the broker');
  assert.match(second, /^listeners=http:\/\/127\.0\.0\.1:18086$/m);
  assert.match(other, /^group\.id=offsetctl-sandbox-other$/m);
  assert.match(other, /^bootstrap\.servers=127\.0\.0\.1:29092$/m, 'the other cluster has a broker of its own');
  const otherServer = read(files.otherServer);
  assert.match(otherServer, /^listeners=PLAINTEXT:\/\/127\.0\.0\.1:29092,CONTROLLER:\/\/127\.0\.0\.1:29093$/m);
  assert.match(otherServer, new RegExp(`^log\\.dirs=${layout.data}/other/kraft$`, 'm'));
  assert.match(read(files.server), new RegExp(`^log\\.dirs=${layout.data}/kraft$`, 'm'));
  for (const file of [...files.secondWorkers, ...files.otherWorkers, files.otherServer ?? '']) assert.doesNotMatch(read(file), /\$\{/);
});
