// Real parts: a loopback HTTP server.
import * as assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { test } from 'node:test';
import { chooseAddedPorts, choosePorts } from './port-plan.js';
import { findFreePort } from './ports.js';

async function occupy(): Promise<{ server: Server; port: number }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { server, port: typeof address === 'object' && address ? address.port : 0 };
}

test('an explicit port that is taken is refused with E_SANDBOX_PORT_TAKEN naming it', async () => {
  const { server, port } = await occupy();
  try {
    await assert.rejects(choosePorts(undefined, 1, { brokerPort: port }), (err: Error & { code?: string }) => err.code === 'E_SANDBOX_PORT_TAKEN' && err.message.includes(`port ${port}`));
    await assert.rejects(choosePorts(undefined, 2, { connectPort: port - 1 }), /already in use/);
  } finally {
    server.close();
  }
});

test('free ports from the previous state are kept; a taken one is replaced', async () => {
  const kept = await findFreePort();
  const { server, port: taken } = await occupy();
  try {
    const ports = await choosePorts({ broker: kept, controller: taken, workers: [taken] }, 2, {});
    assert.equal(ports.broker, kept);
    assert.notEqual(ports.controller, taken);
    assert.notEqual(ports.workers[0], taken);
    assert.equal(ports.workers.length, 2);
    assert.equal(new Set([ports.broker, ports.controller, ...ports.workers]).size, 4, 'all four ports differ');
  } finally {
    server.close();
  }
});

test('ports for added clusters never reuse a port of the running ones, and keep their own earlier ports when free', async () => {
  const keptSecond = await findFreePort();
  const previous = { broker: await findFreePort(), controller: await findFreePort(), workers: [await findFreePort()], secondWorkers: [keptSecond] };
  const added = await chooseAddedPorts(previous, { secondWorkers: 2, otherWorkers: 1 });
  assert.equal(added.secondWorkers?.[0], keptSecond);
  assert.equal(added.secondWorkers?.length, 2);
  assert.equal(added.other?.workers.length, 1);
  const all = [previous.broker, previous.controller, ...previous.workers, ...(added.secondWorkers ?? []), added.other?.broker, added.other?.controller, ...(added.other?.workers ?? [])];
  assert.equal(new Set(all).size, all.length, 'no port is used twice');
  // A fresh plan asked for both added clusters gives them ports as well.
  const fresh = await choosePorts(undefined, 2, { secondWorkers: 2, otherWorkers: 1 });
  assert.equal(fresh.secondWorkers?.length, 2);
  assert.ok(fresh.other);
});

test('each test lane\'s cluster gets its own worker ports, kept from the previous state when free', async () => {
  const kept = await findFreePort();
  const previous = { broker: await findFreePort(), controller: await findFreePort(), workers: [await findFreePort()], lanes: { 'lane-2': [kept] } };
  const added = await chooseAddedPorts(previous, { lanes: { names: ['lane-2', 'lane-3'], workers: 2 } });
  assert.equal(added.lanes?.['lane-2']?.[0], kept);
  assert.equal(added.lanes?.['lane-3']?.length, 2);
  const all = [previous.broker, previous.controller, ...previous.workers, ...Object.values(added.lanes ?? {}).flat()];
  assert.equal(new Set(all).size, all.length, 'no port is used twice');
  const fresh = await choosePorts(undefined, 2, { secondWorkers: 2, lanes: { names: ['lane-2'], workers: 2 } });
  const ports = [fresh.broker, fresh.controller, ...fresh.workers, ...(fresh.secondWorkers ?? []), ...(fresh.lanes?.['lane-2'] ?? [])];
  assert.equal(ports.length, 8);
  assert.equal(new Set(ports).size, 8);
});
