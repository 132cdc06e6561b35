// Child process for the large-offsets figure: one size per process, so the peak RSS it reports
// belongs to that size alone. Reads the JSON texts the parent wrote, then times what `rewind`
// does with them before asking for confirmation: parse, validate, diff, render.
import { readFileSync } from 'node:fs';
import { diffOffsets, validateOffsetsShape } from '../src/ops/index.js';
import { renderDiff } from '../src/cli/render/diff.js';

const [currentFile, targetFile] = process.argv.slice(2);
if (!currentFile || !targetFile) {
  process.stderr.write('usage: node dist/bench/offsets-child.js <current.json> <target.json>\n');
  process.exit(2);
}
// Read untimed, like the body of GET /offsets and the operator's --offsets file arriving as text.
const currentText = readFileSync(currentFile, 'utf8');
const targetText = readFileSync(targetFile, 'utf8');
const rssBeforeKb = process.resourceUsage().maxRSS;

// Named, so a CPU profile shows the parse under its own name instead of this module's top level.
function parseOffsetsText(text: string): unknown {
  return JSON.parse(text) as unknown;
}

const t0 = performance.now();
const currentOffsets = parseOffsetsText(currentText);
const targetOffsets = parseOffsetsText(targetText);
const t1 = performance.now();
validateOffsetsShape('source', targetOffsets);
const t2 = performance.now();
const diff = diffOffsets(currentOffsets, targetOffsets);
const t3 = performance.now();
const text = renderDiff(diff);
const t4 = performance.now();

// Check the work was real: every partition changed, one line each plus the summary.
let lines = 1;
for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lines++;
const size = diff.entries.length;
if (diff.counts.changed !== size || lines !== size + 1) {
  process.stderr.write(`unexpected diff: ${JSON.stringify(diff.counts)}, ${lines} lines\n`);
  process.exit(1);
}

process.stdout.write(
  `${JSON.stringify({
    size,
    bytes: currentText.length + targetText.length,
    parseMs: t1 - t0,
    validateMs: t2 - t1,
    diffMs: t3 - t2,
    renderMs: t4 - t3,
    totalMs: t4 - t0,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
    rssBeforeMb: rssBeforeKb / 1024,
  })}\n`,
);
