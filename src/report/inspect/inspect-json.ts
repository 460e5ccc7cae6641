// The `inspect --json` shape (records.md "Minidump records", checked by
// schemas/inspect.schema.json): a ProcessState (src/processor/) written out, with addresses as
// `0x…` and times as ISO 8601. This is the edge where the typed state becomes text.
import { hex, hex32 } from '../../minidump/bytes.js';
import type { AccessKind } from '../../minidump/exception-codes.js';
import type { MemoryInfoSummary } from '../../minidump/streams/memory-info-list.js';
import type { InspectedClr, InspectedClrException } from '../../processor/clr.js';
import type { DumpKind } from '../../processor/dump-kind.js';
import { processDump, type ProcessOptions } from '../../processor/process-dump.js';
import type {
  ModuleSymbolStatus,
  ProcessException,
  ProcessResult,
  ProcessState,
} from '../../processor/process-state.js';
import type { HarnessErrorCode } from '../../errors.js';
import type { DumpWriter } from '../../processor/writer-fingerprint.js';
import { describeModule, describeThread, epochToIso } from './inspect-describe.js';
import * as walked from './inspect-stacks.js';

export interface InspectedSystem {
  arch: string;
  osVersion: string;
  csd: string | null;
  cpuCount: number;
  platform: string;
  /** Wine's own build string, in dumps Wine wrote. */
  wineBuild?: string;
}

export interface InspectedProcess {
  pid?: number;
  /** ISO 8601. */
  createTime?: string;
  /** File name of the main module (the first in the module list). */
  name?: string;
  path?: string;
  /** Dump time minus process create time. */
  uptimeSeconds?: number;
  userTimeSeconds?: number;
  kernelTimeSeconds?: number;
  /** From ProcessVmCounters: commit charge and working set, in bytes. */
  privateUsage?: number;
  workingSetSize?: number;
}

export interface InspectedException extends walked.WalkedException {
  threadId: number;
  code: string;
  name: string;
  /** ExceptionFlags, `0x…` (1 = EXCEPTION_NONCONTINUABLE), as in analyze records. */
  flags: string;
  address: string;
  parameters: string[];
  /** Access violations: what was attempted and where (from the parameters). */
  accessType?: AccessKind;
  accessAddress?: string;
  /** The module whose image holds `address`, and the offset into it. */
  module?: string;
  moduleOffset?: string;
  /** True when the record chains to another (ExceptionRecord ≠ 0). */
  nested?: boolean;
  /** CLR exceptions (0xe0434352/0xe0434f4d): the HRESULT and runtime the parameters name. */
  clr?: InspectedClrException;
}

export interface InspectedThread extends walked.WalkedThread {
  id: number;
  suspendCount: number;
  teb: string;
  stackStart: string;
  stackSize: number;
  priority: number;
  priorityClass: number;
  name?: string;
  /** The thread the exception stream names. */
  faulting?: boolean;
  /** ThreadInfoList says this thread wrote the dump. */
  writingThread?: boolean;
  createTime?: string;
  userTimeMs?: number;
  kernelTimeMs?: number;
  startAddress?: string;
}

export interface InspectedModule {
  base: string;
  size: number;
  path: string;
  name: string;
  /** PE TimeDateStamp as ISO 8601 (a link time, or a hash in reproducible builds). */
  timestamp: string;
  /** The same TimeDateStamp as written: seconds since 1970 (what symbol servers key on). */
  timestampEpoch: number;
  checksum: number;
  fileVersion?: string;
  pdbName?: string;
  pdbPath?: string;
  /** Symbol-server debug id: GUID + age (RSDS) or signature + age (NB10). */
  debugId?: string;
  /** Symbol-server code id: TimeDateStamp + SizeOfImage. */
  codeId: string;
}

export interface InspectedUnloadedModule {
  base: string;
  size: number;
  path: string;
  name: string;
  /** PE TimeDateStamp as ISO 8601, and as written. */
  timestamp: string;
  timestampEpoch: number;
}

export interface InspectedMemory {
  rangeCount: number;
  totalBytes: number;
  sources: ('MemoryList' | 'Memory64List')[];
  /** Captured bytes the descriptors declare but the file lacks (truncated dump). */
  missingBytes: number;
  /** Region totals from MemoryInfoList, when present. */
  info?: MemoryInfoSummary;
}

export interface InspectedStream {
  index: number;
  type: number;
  name: string;
  size: number;
  rva: number;
}

export interface InspectedDumpOk extends walked.WalkedDump {
  file: string;
  /** Only for a name that is not valid UTF-8: the path's exact bytes, base64 (`file` has U+FFFD). */
  fileBytes?: string;
  ok: true;
  fileSize: number;
  /** Full vs mini, decided from the streams present (the name analyze records use too). */
  dumpKind: DumpKind;
  /** @deprecated the same as dumpKind (records.md published `kind`); removed after 0.x. */
  kind: DumpKind;
  /** header Flags (MINIDUMP_TYPE) as written. */
  flags: string;
  /** ISO 8601, when the dump was written (the name analyze records use too). */
  dumpTimestamp: string;
  /** @deprecated the same as dumpTimestamp (records.md published `timestamp`); removed after 0.x. */
  timestamp: string;
  writer?: DumpWriter;
  writerEvidence?: string;
  system: InspectedSystem | null;
  process: InspectedProcess;
  /** The CLR runtime module (coreclr.dll, clr.dll, mscorwks.dll) when the process loaded one. */
  clr?: InspectedClr;
  exception: InspectedException | null;
  threads: InspectedThread[];
  modules: InspectedModule[];
  unloadedModules: InspectedUnloadedModule[];
  handles?: { count: number; byType: Record<string, number> };
  memory: InspectedMemory;
  comments?: string[];
  streams: InspectedStream[];
  /** Per module a walked frame lands in: its symbol files, or why none (a symbol path given). */
  symbols?: ModuleSymbolStatus[];
  /** File bytes the inspection read (a full dump's memory is never touched). */
  bytesRead: number;
  /** True when anything the file references lies past its end (processor/truncated-streams.ts). */
  truncated: boolean;
  /** What lies past the end, counted: `{"ModuleList strings": 37, "exception context": 1}`. */
  pastEnd?: Record<string, number>;
  warnings: string[];
}

export interface InspectedDumpFailed {
  file: string;
  fileBytes?: string;
  ok: false;
  error: { code: HarnessErrorCode | 'INTERNAL'; message: string };
  fileSize?: number;
  warnings: string[];
}

export type InspectedDump = InspectedDumpOk | InspectedDumpFailed;

export type InspectDumpOptions = ProcessOptions;

/**
 * One dump as the `inspect --json` object: processDump() then inspectJson(). Like the CLI's
 * `inspect`, every thread's stack is walked unless `threads` says otherwise (`'exception'`: the
 * crashing thread only; `'none'`: the streams only, fastest). A bad file gives `ok: false`,
 * never a throw.
 */
export async function inspectDump(
  path: string,
  options: InspectDumpOptions = {},
): Promise<InspectedDump> {
  return inspectJson(await processDump(path, { threads: 'all', ...options }));
}

/** The processor's result as the records.md object. */
export function inspectJson(state: ProcessResult): InspectedDump {
  if (!state.ok) return state;
  const p = state.process;
  const process: InspectedProcess = {};
  if (p.pid !== undefined) process.pid = p.pid;
  if (p.createTime !== undefined) process.createTime = epochToIso(p.createTime);
  if (p.uptimeSeconds !== undefined) process.uptimeSeconds = p.uptimeSeconds;
  if (p.userTimeSeconds !== undefined) process.userTimeSeconds = p.userTimeSeconds;
  if (p.kernelTimeSeconds !== undefined) process.kernelTimeSeconds = p.kernelTimeSeconds;
  if (p.main) {
    process.name = p.main.name;
    process.path = p.main.path;
  }
  if (p.privateUsage !== undefined) process.privateUsage = p.privateUsage;
  if (p.workingSetSize !== undefined) process.workingSetSize = p.workingSetSize;
  const system = state.system;
  const written = epochToIso(state.time);
  const result: InspectedDumpOk = {
    file: state.file,
    ok: true,
    fileSize: state.fileSize,
    dumpKind: state.dumpKind,
    kind: state.dumpKind,
    flags: hex(state.headerFlags),
    dumpTimestamp: written,
    timestamp: written,
    system: system && {
      arch: system.arch,
      osVersion: system.osVersion,
      csd: system.csd,
      cpuCount: system.cpuCount,
      platform: system.platform,
      ...(system.wine ? { wineBuild: system.wine.build } : {}),
    },
    process,
    exception: state.exception && describeException(state.exception, state),
    threads: state.threads.map(describeThread),
    modules: state.modules.map(describeModule),
    unloadedModules: state.unloadedModules.map((m) => ({
      base: hex(m.base),
      size: m.size,
      path: m.path,
      name: m.name,
      timestamp: epochToIso(m.timeDateStamp),
      timestampEpoch: m.timeDateStamp,
    })),
    memory: { ...state.memory, sources: [...state.memory.sources] },
    streams: state.streams.map((s) => ({
      index: s.index,
      type: s.type,
      name: s.name,
      size: s.size,
      rva: s.rva,
    })),
    bytesRead: state.bytesRead,
    truncated: state.truncated,
    ...(state.pastEnd === undefined ? {} : { pastEnd: { ...state.pastEnd } }),
    warnings: [...state.warnings],
  };
  if (state.clr) result.clr = state.clr;
  if (state.writer) {
    result.writer = state.writer.writer;
    result.writerEvidence = state.writer.evidence;
  }
  if (state.handles) result.handles = state.handles;
  if (state.comments.length > 0) result.comments = state.comments;
  if (state.images !== undefined) result.images = state.images;
  if (state.symbols !== undefined) result.symbols = state.symbols;
  return result;
}

function describeException(exception: ProcessException, state: ProcessState): InspectedException {
  const out: InspectedException = {
    threadId: exception.threadId,
    code: hex32(exception.code),
    name: exception.name,
    flags: hex(exception.flags),
    address: hex(exception.address),
    parameters: exception.parameters.map((p) => hex(p)),
  };
  if (exception.access) {
    if (exception.access.kind) out.accessType = exception.access.kind;
    out.accessAddress = hex(exception.access.address);
  }
  if (exception.module) {
    out.module = exception.module.name;
    out.moduleOffset = hex(exception.address - exception.module.base);
  }
  if (exception.nested) out.nested = true;
  if (exception.clr) out.clr = exception.clr;
  if (exception.registers !== undefined && state.arch !== null) {
    out.registers = walked.registerText(exception.registers, state.arch);
  }
  return out;
}
