// Figure 6: the web console's server time. The connectors page for 500 connectors (target
// < 1 s) and the connector page of a sink with 1,000 partitions (paged: 100 rows a page, so
// the browser gets a small page whatever the partition count). The renderers get their data
// directly (no cluster): this is the console's own cost. The reference for the connectors page is
// JSON.stringify of the same data, the floor of any server answering it; for the offsets page
// it is the same page rendered unpaged.
import type { BenchOptions, FigureResult, FigureRow } from './figure.js';
import { median, ratio, round } from './stats.js';
import type { ConnectorSummary, RunRecord } from '../src/web/ops-bridge.js';
import { connectorsPage } from '../src/web/pages/connectors.js';
import { connectorPage, shownSinkPartitions } from '../src/web/pages/connector.js';
import { changePage } from '../src/web/pages/change.js';
import { offsetsTable, pageOf } from '../src/web/pages/offsets-view.js';

const CONNECTORS = 500;
const PARTITIONS = 1000;
const TARGET_MS = 1000;
const OFFSETS_TARGET_MS = 100;
const OFFSETS_TARGET_KB = 200;

export async function measureUi(options: BenchOptions): Promise<FigureResult> {
  const rounds = options.quick ? 5 : 30;
  const connectors = makeConnectors(CONNECTORS);
  const lastRuns = makeRuns(connectors);
  const frame = {
    csrf: 'x'.repeat(32),
    contexts: {
      current: '',
      options: [
        { value: '', label: 'bench' },
        { value: 'prod', label: 'prod' },
      ],
    },
  };
  const view = { connectors, lastRuns, filter: '', clusterUrl: 'http://connect:8083' };

  const pageMs: number[] = [];
  const jsonMs: number[] = [];
  let pageBytes = 0;
  for (let i = 0; i < rounds; i++) {
    let t = performance.now();
    pageBytes = String(connectorsPage(view, frame)).length;
    pageMs.push(performance.now() - t);
    t = performance.now();
    JSON.stringify({ connectors, lastRuns: [...lastRuns.values()] });
    jsonMs.push(performance.now() - t);
  }

  const offsets = Array.from({ length: PARTITIONS }, (_v, p) => ({
    partition: { kafka_topic: `orders-${p % 4}`, kafka_partition: Math.floor(p / 4) },
    offset: { kafka_offset: 1_000_000 + p },
  }));
  const info = {
    name: 'orders-sink',
    type: 'sink' as const,
    state: 'RUNNING',
    tasks: [{ id: 0, state: 'RUNNING', workerId: 'w1:8083' }],
    config: { 'connector.class': 'x.Sink', topics: 'orders-0,orders-1,orders-2,orders-3' },
  };
  const offsetsMs: number[] = [];
  const unpagedMs: number[] = [];
  const changeMs: number[] = [];
  let offsetsBytes = 0;
  let unpagedBytes = 0;
  let changeBytes = 0;
  for (let i = 0; i < rounds; i++) {
    let t = performance.now();
    // With the log start/end/lag columns: the console reads them for the shown page only.
    const log = {
      status: 'ok' as const,
      servers: 'kafka:9092',
      positions: Object.fromEntries(
        shownSinkPartitions(offsets, 3).map((p) => [`${p.topic}/${p.partition}`, { logStart: 0, logEnd: 2_000_000, lag: 2_000_000 - (p.committed ?? 0) }]),
      ),
    };
    offsetsBytes = String(connectorPage({ info, offsets, page: 3, log, runs: [], snapshots: [] }, frame)).length;
    offsetsMs.push(performance.now() - t);
    t = performance.now();
    unpagedBytes = String(offsetsTable(offsets, pageOf(offsets, 1, PARTITIONS), { caption: 'all' })).length;
    unpagedMs.push(performance.now() - t);
    t = performance.now();
    changeBytes = String(
      changePage(
        {
          info,
          offsets,
          page: 1,
          csrf: 'x',
          positions: {
            offered: true,
            kinds: ['earliest', 'latest', 'time', 'shift'],
            lookup: 'every partition of every topic the sink consumes, looked up on Kafka at kafka:9092',
          },
        },
        frame,
      ),
    ).length;
    changeMs.push(performance.now() - t);
  }

  const page = median(pageMs);
  const json = median(jsonMs);
  const off = median(offsetsMs);
  const rows: FigureRow[] = [
    {
      id: '6.ui-connectors-500',
      figure: `ui: connectors page, ${CONNECTORS} connectors`,
      measured: page,
      reference: json,
      unit: 'ms',
      referenceLabel: 'JSON.stringify of the same data',
      ratio: ratio(page, json),
      target: `< ${TARGET_MS} ms`,
      verdict: page < TARGET_MS ? 'pass' : 'miss',
      note: `${round(pageBytes / 1024, 0)} KB of HTML; median of ${rounds}`,
    },
    {
      id: '6.ui-offsets-1000',
      figure: `ui: connector page, sink with ${PARTITIONS} partitions (paged)`,
      measured: off,
      reference: median(unpagedMs),
      unit: 'ms',
      referenceLabel: 'the offsets table unpaged',
      ratio: ratio(off, median(unpagedMs)),
      target: `< ${OFFSETS_TARGET_MS} ms, < ${OFFSETS_TARGET_KB} KB`,
      verdict: off < OFFSETS_TARGET_MS && offsetsBytes < OFFSETS_TARGET_KB * 1024 ? 'pass' : 'miss',
      note: `page of 100 rows: ${round(offsetsBytes / 1024, 0)} KB (unpaged table alone ${round(unpagedBytes / 1024, 0)} KB); change page ${round(median(changeMs), 1)} ms, ${round(changeBytes / 1024, 0)} KB`,
    },
  ];
  return {
    rows,
    raw: {
      rounds,
      connectorsPageMs: pageMs.map((x) => round(x, 3)),
      jsonMs: jsonMs.map((x) => round(x, 3)),
      pageBytes,
      offsetsPageMs: offsetsMs.map((x) => round(x, 3)),
      unpagedMs: unpagedMs.map((x) => round(x, 3)),
      offsetsBytes,
      unpagedBytes,
      changePageMs: changeMs.map((x) => round(x, 3)),
      changeBytes,
    },
  };
}

function makeConnectors(n: number): ConnectorSummary[] {
  const states = ['RUNNING', 'RUNNING', 'RUNNING', 'PAUSED', 'STOPPED', 'FAILED'];
  return Array.from({ length: n }, (_v, i) => ({
    name: `team-${i % 17}-connector-${String(i).padStart(4, '0')}`,
    type: i % 3 === 0 ? 'sink' : 'source',
    state: states[i % states.length]!,
    tasks: Array.from({ length: 1 + (i % 4) }, (_t, id) => ({ id, state: i % 11 === 0 && id === 0 ? 'FAILED' : 'RUNNING', workerId: `w${id % 2}:8083` })),
  }));
}

function makeRuns(connectors: ConnectorSummary[]): Map<string, RunRecord> {
  const runs = new Map<string, RunRecord>();
  connectors.forEach((c, i) => {
    if (i % 3 !== 0) return;
    runs.set(c.name, {
      id: `run-20261130-0000${i}`,
      clusterUrl: 'http://connect:8083',
      clusterKey: 'url:http://connect:8083',
      connector: c.name,
      operation: 'rewind',
      status: 'succeeded',
      displayStatus: 'succeeded',
      startedAt: '2026-11-30T10:00:00.000Z',
      workflowFile: 'w.yaml',
      workflowId: 'w',
      inputs: {},
      pid: 1,
      hostname: 'h',
      context: {},
      actor: { user: 'u', via: 'cli', osUser: 'u', host: 'h', pid: 1, version: '0.1.0' },
    });
  });
  return runs;
}
