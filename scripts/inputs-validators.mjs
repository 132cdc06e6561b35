// Build step: the inputs schemas of the shipped workflows (workflows/*.arazzo.yaml), compiled by
// ajv ahead of time into plain validation functions ("standalone code", ajv's own feature), one
// CommonJS file beside the CLI's chunks: dist/bundle/cli/inputs-validators.cjs. A rewind then
// validates its inputs without loading or running ajv's compiler (~50 ms of its CPU, BENCHMARKS.md
// figure 5). The engine looks a schema up by the sha256 of its JSON (src/arazzo/runner/inputs.ts,
// inputsSchemaKey) and compiles with ajv as before when the schema is not here (any other
// document, or an edited workflow file), so an out-of-date entry is never used.
// The ajv options must be those of inputs.ts's ajvFor; test/project/inputs-validators.test.ts
// checks the precompiled functions against ajv's answers on valid and invalid inputs.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const AJV_OPTIONS = { allErrors: true, useDefaults: true, strict: false, validateFormats: true, validateSchema: false };

/** The schema root inputs.ts compiles: the schema, the document's components.inputs, no $id. */
export function inputsRoot(schema, components) {
  const root = { ...schema };
  if (components?.inputs) root.components = { inputs: components.inputs };
  delete root.$id;
  return root;
}

export function inputsSchemaKey(root) {
  return createHash('sha256').update(JSON.stringify(root)).digest('hex');
}

/** Writes the validators of every workflow in `workflowsDir` to `outfile` (bundled with esbuild). */
export async function buildInputsValidators(root, workflowsDir, outfile) {
  const require = createRequire(join(root, 'package.json'));
  const YAML = require('yaml');
  const standaloneCode = require('ajv/dist/standalone').default;
  const exportsByKey = {};
  const dialects = new Map();
  for (const name of readdirSync(workflowsDir)
    .filter((f) => f.endsWith('.arazzo.yaml'))
    .sort()) {
    const doc = YAML.parse(readFileSync(join(workflowsDir, name), 'utf8'));
    for (const wf of doc.workflows ?? []) {
      if (!wf.inputs || typeof wf.inputs !== 'object') continue;
      const schemaRoot = inputsRoot(wf.inputs, doc.components);
      const draft07 = /draft-0[4-7]/.test(typeof schemaRoot.$schema === 'string' ? schemaRoot.$schema : '');
      const formats = JSON.stringify(schemaRoot).includes('"format"');
      const dialectKey = `${draft07}-${formats}`;
      let ajv = dialects.get(dialectKey);
      if (!ajv) {
        const Ajv = draft07 ? require('ajv').default : require('ajv/dist/2020.js').default;
        ajv = new Ajv({ ...AJV_OPTIONS, code: { source: true } });
        if (formats) require('ajv-formats').default(ajv);
        dialects.set(dialectKey, ajv);
      }
      // inputs.ts refuses a schema its meta-schema rejects: such a schema is not precompiled.
      if (!ajv.validateSchema(schemaRoot)) continue;
      const key = inputsSchemaKey(schemaRoot);
      exportsByKey[key] = standaloneCode(ajv, ajv.compile(schemaRoot));
    }
  }
  // One module per validator (standalone code declares its own top-level names), then one bundle.
  // (A fixed folder rather than a random temp one: the bundle's comments name it, and the same
  // workflows must build the same file.)
  const tmp = join(dirname(outfile), '.inputs-validators');
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  try {
    const lines = [];
    for (const [key, code] of Object.entries(exportsByKey)) {
      writeFileSync(join(tmp, `${key}.cjs`), code);
      lines.push(`  ${JSON.stringify(key)}: () => require(${JSON.stringify(`./${key}.cjs`)}),`);
    }
    writeFileSync(join(tmp, 'index.cjs'), `module.exports = {\n${lines.join('\n')}\n};\n`);
    const { build } = await import('esbuild');
    await build({
      entryPoints: [join(tmp, 'index.cjs')],
      nodePaths: [join(root, 'node_modules')],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20.19',
      logLevel: 'warning',
    });
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return Object.keys(exportsByKey);
}
