// The Arazzo 1.0.x document model, as plain data. Loading keeps the document as parsed JSON;
// these types describe what validation guarantees before the runner touches it.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export interface ArazzoDocument {
  arazzo: string;
  /** 1.1: the document's own URI, the base for relative source URLs. */
  $self?: string;
  info: { title: string; summary?: string; description?: string; version: string };
  sourceDescriptions: SourceDescription[];
  workflows: Workflow[];
  components?: Components;
  [extension: `x-${string}`]: unknown;
}

export interface SourceDescription {
  name: string;
  url: string;
  type?: 'openapi' | 'arazzo' | 'asyncapi';
}

export interface Components {
  inputs?: Record<string, Json>;
  parameters?: Record<string, Parameter>;
  successActions?: Record<string, SuccessAction>;
  failureActions?: Record<string, FailureAction>;
}

export interface Workflow {
  workflowId: string;
  summary?: string;
  description?: string;
  inputs?: Json;
  dependsOn?: string[];
  steps: Step[];
  successActions?: Array<SuccessAction | ReusableObject>;
  failureActions?: Array<FailureAction | ReusableObject>;
  outputs?: Record<string, string>;
  parameters?: Array<Parameter | ReusableObject>;
}

export interface Step {
  stepId: string;
  description?: string;
  operationId?: string;
  operationPath?: string;
  workflowId?: string;
  parameters?: Array<Parameter | ReusableObject>;
  requestBody?: RequestBody;
  successCriteria?: Criterion[];
  onSuccess?: Array<SuccessAction | ReusableObject>;
  onFailure?: Array<FailureAction | ReusableObject>;
  outputs?: Record<string, string>;
  /** 1.1 */
  channelPath?: string;
  /** 1.1: the workflow's side of an AsyncAPI operation. */
  action?: 'send' | 'receive';
  /** 1.1: the value a received message's correlation id must have. */
  correlationId?: unknown;
  /** 1.1: milliseconds. */
  timeout?: number;
  /** 1.1: stepIds, `$workflows.<id>.steps.<stepId>` or `$sourceDescriptions.<name>.<wf>.steps.<stepId>`. */
  dependsOn?: string[];
}

export type ParameterLocation = 'path' | 'query' | 'querystring' | 'header' | 'cookie';

export interface Parameter {
  name: string;
  in?: ParameterLocation;
  value: unknown;
}

/** `{reference: '$components.parameters.x', value?: ...}` */
export interface ReusableObject {
  reference: string;
  value?: unknown;
}

export interface RequestBody {
  contentType?: string;
  payload?: unknown;
  replacements?: PayloadReplacement[];
}

export interface PayloadReplacement {
  target: string;
  value: unknown;
  /** 1.1: `jsonpath`, `xpath`, `jsonpointer` or `{type, version}`. */
  targetSelectorType?: unknown;
}

export type CriterionKind = 'simple' | 'regex' | 'jsonpath' | 'xpath';

/** The spec's Criterion Expression Type Object: `{type: jsonpath, version: draft-goessner-dispatch-jsonpath-00}`. */
export interface CriterionExpressionType {
  type: 'jsonpath' | 'xpath';
  version: string;
}

export interface Criterion {
  context?: string;
  condition: string;
  type?: CriterionKind | CriterionExpressionType;
  /** Tolerated flattened form (OAI work-in-progress schema): `type: xpath` with `version` beside it. */
  version?: string;
}

export interface SuccessAction {
  name: string;
  type: 'end' | 'goto';
  workflowId?: string;
  stepId?: string;
  criteria?: Criterion[];
  /** 1.1: inputs of the workflow a goto calls. */
  parameters?: Array<Parameter | ReusableObject>;
}

export interface FailureAction {
  name: string;
  type: 'end' | 'goto' | 'retry';
  workflowId?: string;
  stepId?: string;
  retryAfter?: number;
  retryLimit?: number;
  criteria?: Criterion[];
  /** 1.1: inputs of the workflow a goto/retry calls. */
  parameters?: Array<Parameter | ReusableObject>;
}
