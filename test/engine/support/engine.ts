// Builds a source registry from an inline Arazzo document and the runner fixture, with every
// source pointed at the test server.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocumentText } from '../../../src/arazzo/document/index.js';
import { loadSources, type SourceRegistry } from '../../../src/arazzo/sources/index.js';

/** The repository root (tests run from dist/test/engine/...). */
export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
export const fixture = (name: string): string => join(repoRoot, 'test', 'fixtures', 'openapi', name);
export const runnerApi = fixture('runner-api.yaml');
export const cli = join(repoRoot, 'bin', 'offsetctl');

export async function registryFor(arazzoYaml: string, serverUrl: string): Promise<SourceRegistry> {
  const doc = parseDocumentText(arazzoYaml, join(repoRoot, 'test', 'engine', 'inline.arazzo.yaml'));
  return loadSources(doc, { overrides: { api: runnerApi }, servers: { all: serverUrl } });
}

/** An Arazzo document around the given workflows (YAML text, indented as list items). */
export function arazzo(workflows: string, components = ''): string {
  return `arazzo: 1.0.1
info: {title: runner test, version: 1.0.0}
sourceDescriptions:
  - name: api
    url: ./runner-api.yaml
    type: openapi
workflows:
${workflows}
${components}`;
}
