// Child process for the start-up figure: imports one module into a fresh Node and prints how
// long the import took (its own code and everything it pulls in), as JSON on stdout.
import { pathToFileURL } from 'node:url';
import { isAbsolute } from 'node:path';

const spec = process.argv[2];
if (!spec) {
  process.stderr.write('usage: node dist/bench/import-cost.js <package-or-absolute-path>\n');
  process.exit(2);
}
const target = isAbsolute(spec) ? pathToFileURL(spec).href : spec;
const started = performance.now();
await import(target);
process.stdout.write(`${JSON.stringify({ spec, ms: performance.now() - started })}\n`);
