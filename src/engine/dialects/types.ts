// The Dialect contract, for everything outside the dialect folders. The definitions live in
// common/types.ts so that the dialect folders (cdb/, winedbg/) depend on common/ only, never on
// the registry's folder that imports them.
export type * from './common/types.js';
