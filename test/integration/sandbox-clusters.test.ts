// The sandbox's second Connect cluster (`sandbox up --clusters 2`): its own group and internal
// topics on the same broker, listed by `status --output json`, and added to a running sandbox
// without restarting the first cluster. Runs on the shared sandbox: the second cluster is
// stopped and added again (its workers only), which the move tests then use; the test lanes'
// clusters (`lane-2` …, scripts/test.mjs) keep running meanwhile and are left out of the names.
// Real parts: the sandbox's Kafka broker and Connect cluster, spawns the CLI.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli } from '../support/cli.js';
import { ConnectRest, uniqueName, waitFor } from '../support/connect.js';
import { listTopics } from '../support/positions-kafka.js';
import { forgetSandbox, getSandbox, secondCluster } from '../support/sandbox.js';

interface StatusJson {
  running: boolean;
  connect: string[];
  bootstrap: string;
  clusters: Array<{ name: string; connect: string[]; bootstrap: string; kafkaClusterId?: string }>;
  processes?: unknown;
}

async function statusJson(): Promise<StatusJson> {
  const cli = await runCli(['sandbox', 'status', '--output', 'json']);
  assert.equal(cli.status, 0, cli.stderr);
  return JSON.parse(cli.stdout) as StatusJson;
}

/** The clusters this file is about: main, second, other (not the test lanes'). */
function names(status: StatusJson): string[] {
  return status.clusters.map((c) => c.name).filter((n) => !n.startsWith('lane-'));
}

/** pid of every process, from the text status (`role pid N alive ...`). */
async function pids(): Promise<Map<string, number>> {
  const cli = await runCli(['sandbox', 'status']);
  const out = new Map<string, number>();
  for (const m of cli.stdout.matchAll(/^\s+(\S+)\s+pid (\d+) alive/gm)) out.set(m[1] as string, Number(m[2]));
  return out;
}

test('up --clusters 2 on a running sandbox adds the second cluster and leaves the first running; down --cluster second stops only it', { timeout: 600_000 }, async () => {
  await secondCluster();
  const before = await pids();
  const main = [...before].filter(([role]) => role === 'broker' || /^worker-\d+$/.test(role));
  assert.ok(main.length >= 2, `the main cluster runs: ${JSON.stringify([...before])}`);

  const down = await runCli(['sandbox', 'down', '--cluster', 'second']);
  assert.equal(down.status, 0, down.stderr);
  assert.match(down.stdout, /second-worker-1/);
  assert.doesNotMatch(down.stdout, /\bbroker\b|[^-]worker-1/, 'only the second cluster was stopped');
  let status = await statusJson();
  assert.equal(status.running, true);
  assert.deepEqual(names(status), ['main']);

  const up = await runCli(['sandbox', 'up', '--clusters', '2'], { timeoutMs: 400_000 });
  assert.equal(up.status, 0, up.stderr);
  assert.match(up.stderr, /adding the second Connect cluster/);
  forgetSandbox();
  const after = await pids();
  for (const [role, pid] of main) assert.equal(after.get(role), pid, `${role} was not restarted`);
  status = await statusJson();
  assert.equal(status.running, true);
  assert.deepEqual(names(status), ['main', 'second']);
});

test('status --output json lists both clusters; the second has its own group and internal topics on the same Kafka cluster', { timeout: 300_000 }, async () => {
  const second = await secondCluster();
  const sandbox = await getSandbox();
  const status = await statusJson();
  const main = status.clusters.find((c) => c.name === 'main');
  assert.deepEqual(main, { name: 'main', connect: sandbox.connect, bootstrap: sandbox.bootstrap, kafkaClusterId: main?.kafkaClusterId });
  assert.equal(second.bootstrap, sandbox.bootstrap, 'the same broker');
  assert.equal(second.connect.length, 2);
  assert.equal(second.connect.filter((u) => sandbox.connect.includes(u)).length, 0, 'other workers');
  for (const url of second.connect) {
    const root = (await (await fetch(`${url}/`)).json()) as { kafka_cluster_id: string };
    assert.equal(root.kafka_cluster_id, main?.kafkaClusterId, 'one Kafka cluster behind both');
    assert.equal((await fetch(`${url}/health`)).status, 200);
  }
  const topics = await listTopics(sandbox.bootstrap);
  for (const kind of ['configs', 'offsets', 'status']) {
    assert.ok(topics.includes(`offsetctl-sandbox-${kind}`), `main ${kind} topic`);
    assert.ok(topics.includes(`offsetctl-sandbox-second-${kind}`), `second ${kind} topic`);
  }

  // A connector created on one cluster is unknown to the other: separate groups.
  const mainRest = new ConnectRest(sandbox.connect[0] as string);
  const secondRest = new ConnectRest(second.connect[1] as string);
  const name = uniqueName('clusters');
  await secondRest.createConnector(name, { 'connector.class': 'org.apache.kafka.connect.file.FileStreamSourceConnector', 'tasks.max': '1', file: '/dev/null', topic: `${name}-topic` }, 'STOPPED');
  try {
    await waitFor(`${name} listed by both second workers`, async () => (await new ConnectRest(second.connect[0] as string).listConnectors()).includes(name));
    assert.ok(!(await mainRest.listConnectors()).includes(name), 'the main cluster does not see it');
  } finally {
    await secondRest.deleteConnector(name).catch(() => undefined);
  }
});
