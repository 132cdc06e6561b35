// The digest every reviewed document carries (saved plans; move, import and export requests):
// SHA-256 of its canonical JSON, and the one check that a stored document still matches it.
import { createHash } from 'node:crypto';
import { OpsError } from '../errors.js';
import { canonicalJson } from '../offsets/index.js';

/** `sha256:<hex>` of the canonical JSON (sorted keys) of `v`. */
export function contentDigest(v: unknown): string {
  return `sha256:${createHash('sha256').update(canonicalJson(v)).digest('hex')}`;
}

/** `doc` when its digest matches the rest of it; else E_PLAN_INVALID (a row edited in the store is refused). */
export function withCheckedDigest<T extends { digest: string }>(doc: T, where: string): T {
  const { digest, ...content } = doc;
  const actual = contentDigest(content);
  if (actual !== digest) {
    throw new OpsError(
      'E_PLAN_INVALID',
      `${where} was changed after it was requested: its digest is ${digest} but its content gives ${actual}; nothing was changed`,
      { field: 'digest' },
    );
  }
  return doc;
}
