// "Load only what a command needs": which packages each workflow command pulls in, seen from a
// fresh Node process (the module cache of this test process would hide it).
// Real parts: a SQLite store file, child processes, spawns the CLI.
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const mainJs = fileURLToPath(new URL('../main.js', import.meta.url));
const clientJs = fileURLToPath(new URL('../../http/client.js', import.meta.url));
const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));
const rewind = `${repoRoot}workflows/rewind-connector-offsets.arazzo.yaml`;
const OPTIONAL = ['fontoxpath', 'slimdom', 'jsonpath-plus', 'jsonpath-rfc9535'];

/** Runs `script` (an ES module body) in a fresh Node; resolves with the loaded package files. */
function loadedFiles(script: string, env: NodeJS.ProcessEnv = { OFFSETCTL_NO_DOCUMENT_CACHE: '1' }): Promise<string[]> {
  const body = `import { createRequire } from 'node:module';\n${script}\nprocess.stderr.write('\\nLOADED ' + JSON.stringify(Object.keys(createRequire(${JSON.stringify(mainJs)}).cache)) + '\\n');`;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--input-type=module', '-e', body], { cwd: repoRoot, timeout: 60_000, env: { ...process.env, ...env } }, (err, _stdout, stderr) => {
      const line = stderr.split('\n').find((l) => l.startsWith('LOADED '));
      if (!line) return reject(new Error(`no module list (${err?.message ?? ''}): ${stderr}`));
      resolve(JSON.parse(line.slice('LOADED '.length)) as string[]);
    });
  });
}

function packagesOf(files: string[]): Set<string> {
  return new Set(files.map((f) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(f)?.[1]).filter((p): p is string => p !== undefined));
}

const runCli = (...args: string[]): string => `const { main } = await import(${JSON.stringify(mainJs)});\nawait main(['node', 'offsetctl', ${args.map((a) => JSON.stringify(a)).join(', ')}]);`;

describe('workflow commands load only what they need', () => {
  it('validate loads neither the HTTP client, ajv nor any XPath/JSONPath engine', async () => {
    const packages = packagesOf(await loadedFiles(runCli('workflow', 'validate', rewind, '--output', 'json')));
    assert.ok(packages.has('yaml'), 'the check itself ran (yaml parsed the document)');
    for (const name of ['undici', 'ajv', ...OPTIONAL]) assert.equal(packages.has(name), false, `${name} was loaded`);
  });

  it('plan without inputs loads no HTTP client and no ajv (inputs given are validated like a run)', async () => {
    const packages = packagesOf(await loadedFiles(runCli('workflow', 'plan', rewind, '--output', 'json')));
    assert.ok(packages.has('yaml'));
    for (const name of ['undici', 'ajv', ...OPTIONAL]) assert.equal(packages.has(name), false, `${name} was loaded`);
  });

  it('with the document cache warm, yaml is not loaded at all (a rewind parses nothing)', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'offsetctl-loading-'));
    try {
      const validate = runCli('workflow', 'validate', rewind, '--output', 'json');
      const cached = { OFFSETCTL_STATE_DIR: stateDir, OFFSETCTL_NO_DOCUMENT_CACHE: '' };
      assert.ok(packagesOf(await loadedFiles(validate, cached)).has('yaml'), 'the first run parses (and fills the cache)');
      assert.equal(packagesOf(await loadedFiles(validate, cached)).has('yaml'), false, 'the second run finds both documents in the cache');
    } finally {
      rmSync(stateDir, { recursive: true, force: true });
    }
  });

  it("the HTTP client loads undici's agent, not its whole entry point (fetch, WebSocket, mocks)", async () => {
    const files = await loadedFiles(`const { HttpClient } = await import(${JSON.stringify(clientJs)});\nawait new HttpClient().close();`);
    assert.ok(files.some((f) => f.endsWith('undici/lib/dispatcher/agent.js')));
    assert.equal(files.some((f) => f.endsWith('undici/index.js') || f.includes('undici/lib/web/fetch')), false);
  });
});
