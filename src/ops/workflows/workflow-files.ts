// The shipped workflow documents ops runs, loaded and checked the same way `offsetctl workflow
// run` loads any document, with every source's server pointed at the chosen cluster.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { shippedReadOptions } from './document-cache.js';
import { assertValid, loadDocumentFile, loadSources, validateArazzo, type LoadedDocument, type SourceRegistry, type Workflow } from '../../arazzo/index.js';

/**
 * `workflows/` at the package root: three folders above the bundle this file is built into
 * (dist/bundle/cli), four above tsc's build of it (dist/src/ops/workflows).
 */
export const WORKFLOWS_DIR = [new URL('../../../workflows/', import.meta.url), new URL('../../../../workflows/', import.meta.url)]
  .map((url) => fileURLToPath(url)).find((dir) => existsSync(dir)) ?? fileURLToPath(new URL('../../../workflows/', import.meta.url));

export type WorkflowKind = 'rewind' | 'reset' | 'restore';

export const WORKFLOW_FILES: Record<WorkflowKind, { file: string; workflowId: string }> = {
  rewind: { file: join(WORKFLOWS_DIR, 'rewind-connector-offsets.arazzo.yaml'), workflowId: 'rewind-connector-offsets' },
  reset: { file: join(WORKFLOWS_DIR, 'reset-connector-offsets.arazzo.yaml'), workflowId: 'reset-connector-offsets' },
  restore: { file: join(WORKFLOWS_DIR, 'restore-connector-offsets.arazzo.yaml'), workflowId: 'restore-connector-offsets' },
};

export interface OpsWorkflow {
  kind: WorkflowKind;
  file: string;
  workflowId: string;
  registry: SourceRegistry;
  /** Step ids in document order. */
  stepOrder: string[];
  /** Steps whose onSuccess actions choose where to go next (re-run them on resume: they only read). */
  decisionSteps: Set<string>;
}

/** A shipped workflow document, read through the face's document cache when it gave one. */
export function loadShippedDocument(file: string): Promise<LoadedDocument> {
  return loadDocumentFile(file, shippedReadOptions());
}

export async function loadOpsWorkflow(kind: WorkflowKind, clusterUrl: string): Promise<OpsWorkflow> {
  const { file, workflowId } = WORKFLOW_FILES[kind];
  const doc = await loadShippedDocument(file);
  assertValid(doc, validateArazzo(doc));
  const registry = await loadSources(doc, { servers: { all: clusterUrl } });
  const workflows = (doc.value as { workflows: Workflow[] }).workflows;
  const workflow = workflows.find((w) => w.workflowId === workflowId);
  if (!workflow) throw new Error(`${file}: workflow ${workflowId} is missing (the installation is damaged)`);
  return {
    kind, file, workflowId, registry,
    stepOrder: workflow.steps.map((s) => s.stepId),
    decisionSteps: new Set(workflow.steps.filter((s) => (s.onSuccess?.length ?? 0) > 0).map((s) => s.stepId)),
  };
}
