// Child process for figure 12: one size and one output mode per process. Builds the plan of a
// FileStreamSource rewind of N partitions (every partition changed, each naming another file
// than the connector reads: one plugin-rule warning each, as in the operator pass) with
// the real diff and plugin rules, then times what the CLI prints for `rewind … --dry-run`
// (src/cli/commands/change-output.ts) in text or JSON. Its stdout and stderr are /dev/null, as
// in `… > /dev/null 2>&1`; the report goes to the file named last.
import { writeFileSync } from 'node:fs';
import { diffOffsets, dryRunOutcome, offsetEntries, type Plan } from '../src/ops/index.js';
import { checkPluginRules } from '../src/ops/offsets/index.js';
import { showOutcome, showPlan } from '../src/cli/commands/change-output.js';

const [sizeText, mode, reportFile] = process.argv.slice(2);
const size = Number(sizeText);
if (!Number.isSafeInteger(size) || (mode !== 'text' && mode !== 'json') || !reportFile) {
  process.stderr.write('usage: node dist/bench/dry-run-output-child.js <partitions> text|json <report.json>\n');
  process.exit(2);
}

const config = { 'connector.class': 'org.apache.kafka.connect.file.FileStreamSourceConnector', file: '/data/in.txt' };
const current = offsetEntries(
  Array.from({ length: size }, (_v, i) => ({ partition: { filename: `/data/f-${i}.txt` }, offset: { position: 100_000 + i * 37 } })),
);
const target = offsetEntries(Array.from({ length: size }, (_v, i) => ({ partition: { filename: `/data/f-${i}.txt` }, offset: { position: 0 } })));
const plan = {
  operation: 'rewind',
  runOperation: 'rewind',
  connector: 'bench-source',
  connectorType: 'source',
  clusterUrl: 'http://127.0.0.1:8083',
  clusterKey: 'kafka:bench',
  stateBefore: 'RUNNING',
  tasks: [{ id: 0, state: 'RUNNING' }],
  stateAfter: 'RUNNING',
  resumeAfter: 'auto',
  currentOffsets: current,
  targetOffsets: target,
  diff: diffOffsets(current, target),
  warnings: checkPluginRules(config, target),
  nothingToChange: false,
  forwardTargets: [],
  chunkSize: 10_000,
  workflow: { kind: 'rewind', file: 'workflows/rewind-connector-offsets.arazzo.yaml', workflowId: 'rewind-connector-offsets' },
  inputs: {},
} as unknown as Plan;
if (plan.diff.counts.changed !== size) {
  process.stderr.write(`unexpected diff: ${JSON.stringify(plan.diff.counts)}\n`);
  process.exit(1);
}

const json = mode === 'json';
const rssBeforeKb = process.resourceUsage().maxRSS;
const t0 = performance.now();
await showPlan(plan, { json, color: false });
await showOutcome(plan, dryRunOutcome(plan), { json, color: false });
const t1 = performance.now();
writeFileSync(
  reportFile,
  JSON.stringify({
    size,
    mode,
    warnings: plan.warnings.length,
    outputMs: t1 - t0,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
    rssBeforeMb: rssBeforeKb / 1024,
  }),
);
