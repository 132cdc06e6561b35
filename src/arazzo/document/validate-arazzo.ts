// Validation entry points: every finding as a Diagnostic, and a guard that refuses invalid documents.

import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ArazzoError, type Diagnostic } from '../errors.js';
import { indexDocument } from './_index.js';
import { _Report, isObject } from './_report.js';
import { rememberedCheck, type LoadedDocument } from './parse-document.js';
import { validateExpressions } from './validate-expressions.js';
import { validateReferences } from './validate-references.js';
import { validateStructure } from './validate-structure.js';

/**
 * Check an Arazzo 1.0.x document: structure, ids, references, runtime expressions and criteria.
 * Operations are checked against the OpenAPI sources separately (`SourceRegistry.checkOperations`).
 *
 * @example
 * const diagnostics = validateArazzo(await loadDocumentFile('flow.arazzo.yaml'));
 * assertValid(doc, diagnostics); // throws E_DOCUMENT_INVALID on any error
 */
export function validateArazzo(doc: LoadedDocument): Diagnostic[] {
  // Kept in the document cache, keyed by this module's own file (a new build judges anew): the
  // shipped workflows are validated once, not on every rewind (~15 ms of its CPU on Node 20).
  return rememberedCheck(doc, `validateArazzo ${validatorIdentity()}`, () => validateNow(doc));
}

let identity: string | undefined;

function validatorIdentity(): string {
  if (identity === undefined) {
    try {
      const info = statSync(fileURLToPath(import.meta.url));
      identity = `${import.meta.url} ${info.size} ${info.mtimeMs}`;
    } catch {
      identity = `${import.meta.url} ${Math.random()}`; // unknowable: never reuse a result
    }
  }
  return identity;
}

function validateNow(doc: LoadedDocument): Diagnostic[] {
  const report = new _Report(doc);
  validateStructure(doc.value, report);
  if (isObject(doc.value)) {
    const index = indexDocument(doc.value);
    validateReferences(index, report);
    validateExpressions(index, report);
  }
  return report.diagnostics;
}

/** Throws ArazzoError('E_DOCUMENT_INVALID') listing the errors, when there is at least one. */
export function assertValid(doc: LoadedDocument, diagnostics: Diagnostic[]): void {
  const errors = diagnostics.filter((d) => d.severity === 'error');
  if (errors.length === 0) return;
  const first = errors[0] as Diagnostic;
  const where = first.line !== undefined ? `${doc.file}:${first.line}:${first.column ?? 1}` : doc.file;
  // The count is of errors only (warnings are listed with them but do not make a document invalid).
  const more = errors.length > 1 ? ` (first of ${errors.length} errors)` : '';
  throw new ArazzoError('E_DOCUMENT_INVALID', `${where}: ${first.message}${more}`, {
    location: { file: doc.file, pointer: first.pointer, line: first.line, column: first.column },
    diagnostics,
  });
}
