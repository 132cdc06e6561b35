// Positions benchmark: how long computing `--to-time` targets takes for a sink reading 100 topics
// × 12 partitions (1,200 partitions) on the real sandbox broker. Measured side: positionTargets()
// in-process (connector info from Connect, cluster-id check, topic list, metadata, log start/end
// and offsets-for-time, the plan). Reference, in interleaved rounds: the bare Kafka requests the
// lookup cannot avoid (metadata + ListOffsets EARLIEST, LATEST and by time for every partition)
// sent with the same client library and no offsetctl code. Also the whole `offsetctl rewind
// --to-time --dry-run` process, as the operator feels it.
//   node dist/bench/positions.js [--quick]
// Creates its topics and a STOPPED sink on the sandbox (unique names), removes them afterwards.
import { spawnSync } from 'node:child_process';
import { Admin, Producer, stringSerializers } from '@platformatic/kafka';
import { HttpClient } from '../src/http/client.js';
import { positionTargets } from '../src/ops/positions/positions-targets.js';
import type { KafkaAccess } from '../src/kafka/connection.js';
import { cli, repoRoot, type BenchOptions, type FigureResult } from './figure.js';
import { median, round } from './stats.js';

const TOPICS = 100;
const PARTITIONS = 12;

export async function measurePositions(options: BenchOptions): Promise<FigureResult> {
  const id = '10.positions';
  const label = '--to-time targets, 100 topics × 12 partitions';
  const status = JSON.parse(spawnSync(process.execPath, [cli, 'sandbox', 'status', '--output', 'json'], { encoding: 'utf8' }).stdout || '{}') as {
    running?: boolean;
    connect?: string[];
    bootstrap?: string;
  };
  if (!status.running || !status.connect?.[0] || !status.bootstrap) {
    return {
      rows: [
        {
          id,
          figure: label,
          measured: null,
          reference: null,
          unit: '',
          referenceLabel: '',
          ratio: null,
          target: 'info',
          verdict: 'skipped',
          note: 'skipped: the sandbox is not running',
        },
      ],
      raw: {},
    };
  }
  const url = status.connect[0];
  const bootstrap = status.bootstrap;
  const prefix = `bench-positions-${Date.now().toString(36)}`;
  const topics = Array.from({ length: TOPICS }, (_, i) => `${prefix}-${String(i).padStart(3, '0')}`);
  const sink = `${prefix}-sink`;
  const base = Date.now() - 3_600_000;
  const admin = new Admin({ clientId: 'bench-positions', bootstrapBrokers: [bootstrap] });
  const http = new HttpClient();
  try {
    options.log(`  creating ${TOPICS} topics × ${PARTITIONS} partitions and 2 records per partition …`);
    await admin.createTopics({ topics, partitions: PARTITIONS, replicas: 1 });
    await waitForLeaders(admin, topics);
    const producer = new Producer({ clientId: 'bench-positions', bootstrapBrokers: [bootstrap], serializers: stringSerializers });
    try {
      for (const topic of topics) {
        const messages = Array.from({ length: PARTITIONS * 2 }, (_, i) => ({
          topic,
          partition: i % PARTITIONS,
          value: `r${i}`,
          timestamp: BigInt(base + i * 60_000),
        }));
        // Right after creating 1,200 partitions a produce can meet a leader change, whose error
        // answer @platformatic/kafka 1.35 fails to parse (OUT_OF_BOUNDS in produce v11): retry.
        for (let attempt = 1; ; attempt++) {
          try {
            await producer.send({ messages });
            break;
          } catch (err) {
            if (attempt >= 10) throw err;
            await new Promise((r) => setTimeout(r, 500));
          }
        }
      }
    } finally {
      await producer.close();
    }
    const created = await fetch(`${url}/connectors`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        name: sink,
        initial_state: 'STOPPED',
        config: {
          'connector.class': 'org.apache.kafka.connect.file.FileStreamSinkConnector',
          'tasks.max': '1',
          file: '/dev/null',
          'topics.regex': `${prefix}-.*`,
        },
      }),
    });
    if (created.status !== 201) throw new Error(`creating the sink: ${created.status} ${await created.text()}`);

    const atMs = base + 12 * 60_000 + 30_000;
    const access: KafkaAccess = { bootstrap: [bootstrap], bootstrapFromFlag: true, settingsFor: async (servers) => ({ bootstrap: servers }) };
    const partitions = topics.map((name) => ({ name, partitionIndexes: Array.from({ length: PARTITIONS }, (_, p) => p) }));
    const measured: number[] = [];
    const expected = new Map<string, number>();
    const reference: number[] = [];
    const measure = async (): Promise<void> => {
      const t = performance.now();
      const targets = await positionTargets({ url, http }, sink, { kind: 'time', atMs, text: 'bench' }, access, { clientId: 'bench-positions' });
      measured.push(performance.now() - t);
      if (targets.offsets.length !== TOPICS * PARTITIONS) throw new Error(`expected ${TOPICS * PARTITIONS} targets, got ${targets.offsets.length}`);
      // Same answer as the bare lookup (by time, −1 → end) for every partition.
      for (const o of targets.offsets) {
        const p = o.partition as { kafka_topic: string; kafka_partition: number };
        if (expected.size > 0 && expected.get(`${p.kafka_topic}:${p.kafka_partition}`) !== o.offset?.kafka_offset)
          throw new Error(`target of ${p.kafka_topic}:${p.kafka_partition} differs from the bare lookup`);
      }
    };
    const referenceRound = async (): Promise<void> => {
      const t = performance.now();
      const bare = new Admin({ clientId: 'bench-positions-ref', bootstrapBrokers: [bootstrap] });
      try {
        await bare.metadata({ topics });
        const ask = (timestamp: bigint) =>
          bare.listOffsets({
            topics: partitions.map((p) => ({ name: p.name, partitions: p.partitionIndexes.map((partitionIndex) => ({ partitionIndex, timestamp })) })),
          });
        const [, ends, byTime] = await Promise.all([ask(-2n), ask(-1n), ask(BigInt(atMs))]);
        const end = new Map(ends.flatMap((t) => t.partitions.map((q) => [`${t.name}:${q.partitionIndex}`, Number(q.offset)] as const)));
        for (const t of byTime)
          for (const q of t.partitions)
            expected.set(`${t.name}:${q.partitionIndex}`, q.offset < 0n ? (end.get(`${t.name}:${q.partitionIndex}`) ?? -1) : Number(q.offset));
      } finally {
        await bare.close();
      }
      reference.push(performance.now() - t);
    };
    const rounds = options.quick ? 3 : 9;
    options.log('  warm-up …');
    await referenceRound();
    await measure();
    measured.length = 0;
    reference.length = 0;
    for (let i = 0; i < rounds; i++) {
      if (i % 2 === 0) {
        await measure();
        await referenceRound();
      } else {
        await referenceRound();
        await measure();
      }
    }
    const cliRuns: number[] = [];
    for (let i = 0; i < (options.quick ? 1 : 3); i++) {
      const t = performance.now();
      const r = spawnSync(
        process.execPath,
        [cli, 'rewind', sink, '--url', url, '--bootstrap', bootstrap, '--to-time', new Date(atMs).toISOString(), '--dry-run', '--output', 'json'],
        { encoding: 'utf8', env: { ...process.env, OFFSETCTL_CONFIG: '/nonexistent/offsetctl-bench.yaml' }, maxBuffer: 64 * 1024 * 1024 },
      );
      cliRuns.push(performance.now() - t);
      if (r.status !== 0) throw new Error(`rewind --dry-run failed: ${r.stderr}`);
    }
    // What a cold process pays before any request: @platformatic/kafka compiles its option
    // schemas (ajv) when imported. Only commands given a position load it.
    const importRuns: number[] = [];
    for (let i = 0; i < (options.quick ? 1 : 3); i++) {
      const r = spawnSync(
        process.execPath,
        ['--input-type=module', '-e', "const t = performance.now(); await import('@platformatic/kafka'); process.stdout.write(String(performance.now() - t));"],
        { encoding: 'utf8', cwd: repoRoot },
      );
      importRuns.push(Number(r.stdout));
    }
    const m = median(measured);
    const ref = median(reference);
    return {
      rows: [
        {
          id,
          figure: label,
          measured: round(m, 0),
          reference: round(ref, 0),
          unit: 'ms',
          referenceLabel: 'the bare Kafka requests (metadata + 3 × ListOffsets, same library)',
          ratio: round(m / ref, 2),
          target: 'info',
          verdict: 'info',
          note: `${rounds} interleaved rounds; whole \`rewind --to-time --dry-run\` process: median ${round(median(cliRuns), 0)} ms, of which importing @platformatic/kafka ${round(median(importRuns), 0)} ms`,
        },
      ],
      raw: { measured, reference, cliRuns, importRuns, topics: TOPICS, partitions: PARTITIONS },
    };
  } finally {
    await fetch(`${url}/connectors/${sink}`, { method: 'DELETE' }).catch(() => undefined);
    await admin.deleteTopics({ topics }).catch(() => undefined);
    await admin.close();
    await http.close();
  }
}

async function waitForLeaders(admin: Admin, topics: string[]): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const md = await admin.metadata({ topics, forceUpdate: true });
    const ready = topics.every((t) => {
      const m = md.topics.get(t);
      return m !== undefined && m.partitions.length === PARTITIONS && m.partitions.every((p) => p.leader >= 0);
    });
    if (ready) return;
    if (Date.now() > deadline) throw new Error('partition leaders not elected after 60 s');
    await new Promise((r) => setTimeout(r, 500));
  }
}

// Run directly: `node dist/bench/positions.js [--quick]`.
if (process.argv[1]?.endsWith('positions.js')) {
  const result = await measurePositions({
    quick: process.argv.includes('--quick'),
    profile: false,
    withSandbox: false,
    log: (l) => process.stderr.write(`${l}\n`),
  });
  process.stdout.write(`${JSON.stringify(result.rows, null, 2)}\n`);
}
