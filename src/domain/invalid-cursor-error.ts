/**
 * Thrown when a page cursor cannot be decoded. Cursors are opaque to clients, so the only
 * useful advice is to pass back exactly what a previous page returned; faces map this to a
 * 400 rather than a 500.
 */
export class InvalidCursorError extends Error {
  constructor() {
    super('Invalid cursor: pass the next_cursor value from a previous page');
    this.name = 'InvalidCursorError';
  }
}
