// The engine's package runs Arazzo 1.1 AsyncAPI steps on the sandbox's real broker without the
// operator tool: `npm pack`, installed into an empty folder beside the user's own
// @platformatic/kafka (the optional peer, linked from this repository's node_modules as a user's
// install would provide it), and `arazzo run --transport @offsetctl/arazzo/kafka` from `/`
// sends a record to a new topic and receives it back. Real parts: npm, the sandbox's Kafka broker.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { packAndInstall } from '../support/arazzo-package.js';
import { repoRoot } from '../support/repo.js';
import { getSandbox } from '../support/sandbox.js';

test('arazzo run --transport @offsetctl/arazzo/kafka: a send to a new topic and its receive, on the real broker', async () => {
  const { bootstrap } = await getSandbox();
  const dir = mkdtempSync(join(tmpdir(), 'arazzo-pack-kafka-'));
  try {
    const { app, bin } = packAndInstall(dir);
    mkdirSync(join(app, 'node_modules', '@platformatic'), { recursive: true });
    symlinkSync(join(repoRoot, 'node_modules', '@platformatic', 'kafka'), join(app, 'node_modules', '@platformatic', 'kafka'), 'dir');
    const run = `pkg-${Date.now().toString(36)}-${process.pid}`;
    const inputs = join(dir, 'inputs.json');
    writeFileSync(inputs, JSON.stringify({ run }));
    const doc = join(repoRoot, 'test', 'fixtures', 'arazzo', 'send-to-new-topic.arazzo.yaml');
    const args = ['run', doc, '--inputs', inputs, '--server', `events=${bootstrap}`, '--transport', '@offsetctl/arazzo/kafka', '--json'];
    const ran = await new Promise<{ status: number | null; stdout: string; stderr: string }>((done) => {
      const child = spawn(bin, args, { cwd: '/' });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d));
      child.stderr.on('data', (d: Buffer) => (stderr += d));
      child.on('close', (status) => done({ status, stdout, stderr }));
    });
    assert.equal(ran.status, 0, `${ran.stdout}\n${ran.stderr}`);
    type Step = { stepId: string; message?: { address: string; offset?: string } };
    const result = JSON.parse(ran.stdout) as { status: string; outputs: Record<string, unknown>; steps: Step[] };
    assert.equal(result.status, 'passed');
    assert.equal(result.outputs['n'], 1);
    const [publish, readBack] = result.steps;
    assert.match(publish?.message?.address ?? '', new RegExp(run));
    assert.equal(readBack?.message?.offset, publish?.message?.offset, 'the record received is the one sent');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
