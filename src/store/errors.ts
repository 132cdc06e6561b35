// Errors raised by the store. `E_LOCKED` is a refusal (exit 2): nothing was changed.
export type StoreErrorCode = 'E_LOCKED' | 'E_STORE' | 'E_NOT_FOUND';

export class StoreError extends Error {
  readonly code: StoreErrorCode;
  constructor(code: StoreErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreError';
    this.code = code;
  }
}
