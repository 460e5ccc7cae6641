// Symbols without a debugger: PDB and Breakpad readers, cdb symbol-path parsing, store layouts,
// cabinet extraction and bounded downloads. A pure leaf: files and HTTP come in from the caller.
export { BufferSource, type ByteSource } from './byte-source.js';
export { PdbFile, type PdbIdentity } from './pdb.js';
export { BreakpadSymbols, type BreakpadLookup, type InlineFrame } from './breakpad-sym.js';
export type {
  CfiRuleSet,
  StackCfiEntry,
  StackIndex,
  StackRecords,
  StackWinEntry,
} from './breakpad-stack.js';
export type { InlineLookup, ModuleSymbolFile, SymbolLookup } from './lookup-types.js';
export {
  chooseSymbolPath,
  isHttpLocation,
  parseSymbolPath,
  type ParsedSymbolPath,
  type SymbolPathElement,
} from './symbol-path.js';
export {
  breakpadName,
  caseVariants,
  folderCandidates,
  storeCandidates,
  type StoreCandidate,
  type SymbolFileFormat,
  type SymbolKey,
} from './store-layout.js';
export { expandCab, extractCab, isCab } from './cab.js';
export {
  MAX_SEGMENT_BYTES,
  safeFileName,
  safeId,
  safeKey,
  urlPath,
  type SafeName,
} from './safe-name.js';
export { readImageIdentity, type ImageIdentity } from './pe-codeview.js';
export { download, isTransientDownloadError, type ChunkSink, type FetchLike } from './download.js';
