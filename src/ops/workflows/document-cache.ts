// The face's document cache (the CLI keeps one in its state folder), handed over once at start-up:
// the engine keeps no cache of its own, and ops reads the shipped documents at many places. A
// side door of the workflows room (.dependency-cruiser.cjs): main hands the cache over before a
// command loads ops or the engine, so this file imports nothing but types.
import type { DocumentCache } from '../../arazzo/index.js';

let documents: { cache?: DocumentCache } = {};

export function useDocumentCache(cache: DocumentCache | undefined): void {
  documents = cache === undefined ? {} : { cache };
}

/** How ops reads a shipped workflow document: through the face's cache, when it gave one. */
export function shippedReadOptions(): { cache?: DocumentCache } {
  return documents;
}
