export { parseDocumentText, loadDocumentFile, DEFAULT_MAX_BYTES } from './parse-document.js';
export type { LoadedDocument, ParseOptions, DocumentCache } from './parse-document.js';
export { isSelectorObject, isArazzo11 } from './_report.js';
export { implicitStepDependencies, CHANNEL_PATH, OPERATION_PATH } from './validate-references.js';
export { validateArazzo, assertValid } from './validate-arazzo.js';
