export { parseDocumentText, loadDocumentFile, DEFAULT_MAX_BYTES } from './parse-document.js';
export type { LoadedDocument, ParseOptions } from './parse-document.js';
export { validateArazzo, assertValid } from './validate-arazzo.js';
