// The Dialect contract, for everything outside the dialect folders. The definitions live in
// shared/types.ts so that the dialect folders (cdb/, winedbg/) depend on shared/ only, never on
// the registry's folder that imports them.
export type * from './shared/types.js';
