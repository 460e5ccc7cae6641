// `inspect --json`: a processed dump written out as records.md's "Minidump records" object.
export { inspectDump, inspectJson } from './inspect-json.js';
export type {
  InspectDumpOptions,
  InspectedDump,
  InspectedDumpOk,
  InspectedDumpFailed,
  InspectedException,
  InspectedModule,
  InspectedUnloadedModule,
  InspectedThread,
  InspectedProcess,
  InspectedSystem,
  InspectedMemory,
  InspectedStream,
} from './inspect-json.js';
export type { InspectedFrame, InspectedStack } from './inspect-stacks.js';
