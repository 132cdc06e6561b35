// `sandbox status` judges each Connect cluster by its own processes: while one cluster is being
// added (its worker runs but does not answer yet), the sandbox is not `running`, and the clusters
// that do run are still listed, so a test lane on its own cluster carries on. Uses: real child
// processes carrying the sandbox's marker, a loopback HTTP server as a healthy worker; no Kafka.
// Real parts: a loopback HTTP server, child processes.
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { sandboxLayout } from './layout.js';
import { findFreePort } from './ports.js';
import { isSandboxProcess, markerArg } from './processes.js';
import { writeState, type SandboxProcess, type SandboxRole } from './state.js';
import { sandboxStatus } from './status.js';

test('a cluster being added makes the sandbox not running, and the clusters that run are still listed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'offsetctl-status-'));
  const children: ChildProcess[] = [];
  const healthy: Server = createServer((_req, res) => res.writeHead(200).end('{}'));
  await new Promise<void>((resolve) => healthy.listen(0, '127.0.0.1', resolve));
  const up = (healthy.address() as { port: number }).port;
  const silent = await findFreePort();
  try {
    const layout = sandboxLayout(dir);
    mkdirSync(dir, { recursive: true });
    const proc = (role: SandboxRole, port: number): SandboxProcess => {
      const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', '--', markerArg(dir)], { stdio: 'ignore' });
      children.push(child);
      return { role, pid: child.pid as number, port, log: join(dir, `${role}.log`) };
    };
    writeState(layout.stateFile, {
      version: 1, kafkaVersion: '4.4.0', clusterId: 'c1',
      ports: { broker: 1, controller: 2, workers: [up], secondWorkers: [silent], lanes: { 'lane-2': [up] } },
      // The second cluster's worker has started and does not answer yet, as while `up --clusters 2` adds it.
      processes: [proc('broker', 1), proc('worker-1', up), proc('lane-2-worker-1', up), proc('second-worker-1', silent)],
    });
    // A child carries the marker once it has exec'd node: wait for that, as `up` waits for a start.
    for (let i = 0; i < 100 && !children.every((c) => isSandboxProcess(c.pid as number, dir)); i++) await new Promise((r) => setTimeout(r, 50));
    const status = await sandboxStatus({ dir });
    assert.equal(status.running, false, 'one worker does not answer');
    assert.deepEqual(status.clusters.map((c) => c.name), ['main', 'lane-2']);
    assert.deepEqual(status.clusters.find((c) => c.name === 'lane-2')?.connect, [`http://127.0.0.1:${up}`]);
    assert.deepEqual(status.connect, [], 'the whole sandbox is not running: no main URLs at the top');
  } finally {
    for (const c of children) c.kill('SIGKILL');
    healthy.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
