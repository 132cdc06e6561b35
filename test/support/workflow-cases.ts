// The workflow documents the end-to-end tests run: each seed unmodified (its source descriptions
// mapped to openapi/kafka-connect.yaml with --source) and the project's own copy in workflows/
// (which points at ../openapi/kafka-connect.yaml itself).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { openapiPath, seedsDir, workflowsDir } from './repo.js';

export interface WorkflowCase {
  label: string;
  file: string;
  sources: Record<string, string>;
  /** Set when the file is not there yet: the test is skipped with this message. */
  skip?: string;
}

function projectCase(label: string, name: string): WorkflowCase {
  const file = join(workflowsDir, name);
  return existsSync(file) ? { label, file, sources: {} } : { label, file, sources: {}, skip: `${file} does not exist yet (written by another engineer)` };
}

export const rewindCases: WorkflowCase[] = [
  { label: 'seed rewind-connector-offsets', file: join(seedsDir, 'rewind-connector-offsets.arazzo.yaml'), sources: { connectorsApi: openapiPath, offsetsApi: openapiPath } },
  projectCase('workflows/rewind-connector-offsets', 'rewind-connector-offsets.arazzo.yaml'),
];

export const resetCases: WorkflowCase[] = [
  { label: 'seed reset-connector-offsets', file: join(seedsDir, 'reset-connector-offsets.arazzo.yaml'), sources: { kafkaConnectApi: openapiPath } },
  projectCase('workflows/reset-connector-offsets', 'reset-connector-offsets.arazzo.yaml'),
];
