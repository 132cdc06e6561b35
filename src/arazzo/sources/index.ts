export { loadSources } from './load-sources.js';
export type { SourceOptions, SourceRegistry, ArazzoSource } from './load-sources.js';
export type { OpenApiSource, OpenApiOperation } from './openapi-source.js';
export { describeOperation } from './resolve-operation.js';
export type { ResolvedOperation, OpenApiParameter, OperationTarget } from './resolve-operation.js';
export { selectServer } from './servers.js';
export type { ServerOverrides } from './servers.js';
