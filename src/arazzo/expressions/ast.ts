// Parsed runtime expressions (Arazzo 1.0.1 §"Runtime Expressions"). `name` keeps the dotted
// remainder as written (`$steps.a.outputs.b.c` → name `b.c`): output names may contain dots,
// so the split between a name and property access is decided at evaluation time against the
// actual values (longest existing name first). `pointer` is the RFC 6901 text after `#`
// (absent when there is no `#`; '' for a bare `#`, meaning the whole value). `text` is the
// expression exactly as written. parseRuntimeExpression and printRuntimeExpression are inverses.

export type RuntimeExpression =
  | { root: 'url'; text: string }
  | { root: 'method'; text: string }
  | { root: 'statusCode'; text: string }
  | { root: 'self'; text: string }
  | { root: 'message'; source: 'header'; name: string; text: string }
  | { root: 'message'; source: 'payload'; pointer?: string; text: string }
  | { root: 'request' | 'response'; source: 'header' | 'query' | 'path'; name: string; text: string }
  | { root: 'request' | 'response'; source: 'body'; pointer?: string; text: string }
  | { root: 'inputs' | 'outputs'; name: string; pointer?: string; text: string }
  | { root: 'steps'; stepId: string; field: string; name?: string; pointer?: string; text: string }
  | { root: 'workflows'; workflowId: string; field: string; name?: string; pointer?: string; text: string }
  | { root: 'sourceDescriptions'; name: string; field?: string; text: string }
  | { root: 'components'; kind: string; name?: string; pointer?: string; text: string };
