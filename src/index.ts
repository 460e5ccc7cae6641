// Public library API: re-exports only.
export * from './errors.js';
export type * from './parsers/records.js';
