// Errors raised by the store. `E_LOCKED` is a refusal (exit 2): nothing was changed.
// `E_STORE_USAGE`: the store was named wrongly (a bad URL, a password in it), `E_STORE_SCHEMA`:
// the team store's schema is newer than this offsetctl; both exit 2 before anything is touched.
// `E_CHANGED`: a change request was moved on by someone else meanwhile (or expired); a refusal.
export type StoreErrorCode = 'E_LOCKED' | 'E_STORE' | 'E_NOT_FOUND' | 'E_STORE_USAGE' | 'E_STORE_SCHEMA' | 'E_CHANGED';

export class StoreError extends Error {
  readonly code: StoreErrorCode;
  constructor(code: StoreErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreError';
    this.code = code;
  }
}
