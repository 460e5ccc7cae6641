// The dump processor's public surface: processDump() and the typed ProcessState it returns.
export { processDump } from './process-dump.js';
export type { ProcessOptions } from './process-dump.js';
export type {
  CallStack,
  FrameTrust,
  ModuleSymbolStatus,
  ProcessException,
  ProcessFailure,
  ProcessFrame,
  ProcessInfo,
  ProcessMemory,
  ProcessModule,
  ProcessRegions,
  ProcessResult,
  ProcessState,
  ProcessThread,
  WalkStop,
} from './process-state.js';
export type { DumpKind } from './dump-kind.js';
export type { DumpWriter } from './writer-fingerprint.js';
export type { InspectedClr, InspectedClrException } from './clr.js';
