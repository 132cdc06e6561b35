export { parseDocumentText, loadDocumentFile, setDocumentCache, DEFAULT_MAX_BYTES } from './parse-document.js';
export type { LoadedDocument, ParseOptions, DocumentCache } from './parse-document.js';
export { isSelectorObject } from './_report.js';
export { validateArazzo, assertValid } from './validate-arazzo.js';
