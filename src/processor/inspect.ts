// `inspectDump`: one dump → the per-dump object of records.md ("Minidump records"), the shape
// `cdb-harness inspect --json` prints and schemas/inspect.schema.json checks. It never throws for
// a bad file: an unreadable header or directory, or an I/O error, gives `ok: false` + `error`.
// Only an abort is rethrown, because the caller asked for it.
import { AbortedError, errorToJSON, type HarnessErrorCode } from '../errors.js';
import { hex, hex32 } from '../minidump/bytes.js';
import {
  clrExceptionDetail,
  findClrRuntime,
  type InspectedClr,
  type InspectedClrException,
} from './clr.js';
import { classifyDump, type DumpKind } from './dump-kind.js';
import {
  accessViolationDetail,
  exceptionName,
  type AccessKind,
} from '../minidump/exception-codes.js';
import { openMinidump, type Minidump } from '../minidump/minidump.js';
import type { MemoryInfoSummary } from '../minidump/streams/memory-info-list.js';
import type { DumpModule } from '../minidump/streams/module-list.js';
import { fingerprintWriter, type DumpWriter } from './writer-fingerprint.js';
import { describeModule, describeThread, epochToIso } from './inspect-describe.js';
import * as walked from './inspect-stacks.js';
import { notePastEndContexts, truncationLine } from './truncated-streams.js';

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
  /** File bytes the inspection read (a full dump's memory is never touched). */
  bytesRead: number;
  /** True when anything the file references lies past its end (see truncated-streams.ts). */
  truncated: boolean;
  /** What lies past the end, counted: `{"ModuleList strings": 37, "exception context": 1}`. */
  pastEnd?: Record<string, number>;
  warnings: string[];
}

export interface InspectedDumpFailed {
  file: string;
  ok: false;
  error: { code: HarnessErrorCode | 'INTERNAL'; message: string };
  fileSize?: number;
  warnings: string[];
}

export type InspectedDump = InspectedDumpOk | InspectedDumpFailed;

export interface InspectDumpOptions {
  signal?: AbortSignal;
  /** Walks the open dump's stacks (dump-stacks.ts); counted in bytesRead. */
  stacks?: (dump: Minidump) => Promise<walked.InspectedStacks>;
}

export async function inspectDump(
  path: string,
  options: InspectDumpOptions = {},
): Promise<InspectedDump> {
  let dump: Minidump | undefined;
  try {
    dump = await openMinidump(path, options.signal === undefined ? {} : { signal: options.signal });
    return await describe(dump, options);
  } catch (error) {
    if (error instanceof AbortedError) throw error;
    const failed: InspectedDumpFailed = {
      file: path,
      ok: false,
      error: errorToJSON(error, { brief: true }),
      warnings: dump ? dump.warnings() : [],
    };
    if (dump) failed.fileSize = dump.fileSize;
    return failed;
  } finally {
    await dump?.close();
  }
}

async function describe(dump: Minidump, options: InspectDumpOptions): Promise<InspectedDumpOk> {
  const [
    systemInfo,
    miscInfo,
    exception,
    threads,
    modules,
    unloaded,
    handles,
    memoryInfo,
    vm,
    comments,
  ] = await Promise.all([
    dump.systemInfo(),
    dump.miscInfo(),
    dump.exception(),
    dump.threads(),
    dump.modules(),
    dump.unloadedModules(),
    dump.handles(),
    dump.memoryInfo(),
    dump.vmCounters(),
    dump.comments(),
  ]);
  const memory = await dump.memorySummary();
  const streams = dump.streams();
  const { kind, warnings: kindWarnings } = classifyDump({
    flags: dump.header.flags,
    streams,
    memory64DeclaredBytes: memory.memory64DeclaredBytes,
  });
  const signExtendedAddresses =
    systemInfo?.processorArchitecture === 0 &&
    ((await dump.memoryMap()).highestStart() ?? 0n) >= 0xffffffff00000000n;
  const writer = fingerprintWriter({
    header: dump.header,
    streams,
    miscInfo,
    systemInfo,
    signExtendedAddresses,
  });

  const extraWarnings = [...kindWarnings];
  if (!systemInfo) extraWarnings.push('no readable SystemInfo stream: architecture and OS unknown');
  if (!dump.stream(0x4)) extraWarnings.push('no ModuleList stream');
  if (!dump.stream(0x3) && !dump.stream(0x8)) extraWarnings.push('no ThreadList stream');
  if (dump.header.timeDateStamp === 0) extraWarnings.push('the header time stamp is 0');

  const main = modules[0];
  const process: InspectedProcess = {};
  if (miscInfo?.processId !== undefined) process.pid = miscInfo.processId;
  if (miscInfo?.processCreateTime !== undefined && miscInfo.processCreateTime !== 0) {
    process.createTime = new Date(miscInfo.processCreateTime * 1000).toISOString();
    const uptime = dump.header.timeDateStamp - miscInfo.processCreateTime;
    if (dump.header.timeDateStamp !== 0 && uptime >= 0) process.uptimeSeconds = uptime;
  }
  if (miscInfo?.processUserTimeSeconds !== undefined)
    process.userTimeSeconds = miscInfo.processUserTimeSeconds;
  if (miscInfo?.processKernelTimeSeconds !== undefined)
    process.kernelTimeSeconds = miscInfo.processKernelTimeSeconds;
  if (main) {
    process.name = main.name;
    process.path = main.path;
  }
  if (vm) {
    process.privateUsage = vm.privateUsage;
    process.workingSetSize = vm.workingSetSize;
  }

  const written = epochToIso(dump.header.timeDateStamp);
  const result: InspectedDumpOk = {
    file: dump.path,
    ok: true,
    fileSize: dump.fileSize,
    dumpKind: kind,
    kind,
    flags: hex(dump.header.flags),
    dumpTimestamp: written,
    timestamp: written,
    system: systemInfo && {
      arch: systemInfo.arch,
      osVersion: systemInfo.osVersion,
      csd: systemInfo.csd,
      cpuCount: systemInfo.cpuCount,
      platform: systemInfo.platform,
      ...(systemInfo.wine ? { wineBuild: systemInfo.wine.build } : {}),
    },
    process,
    exception: exception && describeException(exception, modules),
    threads: threads.map((t) => describeThread(t, exception?.threadId)),
    modules: modules.map(describeModule),
    unloadedModules: unloaded.map((m) => ({
      base: hex(m.base),
      size: m.size,
      path: m.path,
      name: m.name,
      timestamp: epochToIso(m.timeDateStamp),
      timestampEpoch: m.timeDateStamp,
    })),
    memory: {
      rangeCount: memory.rangeCount,
      totalBytes: memory.totalBytes,
      sources: memory.sources,
      missingBytes: memory.missingBytes,
      ...(memoryInfo ? { info: memoryInfo.summary } : {}),
    },
    streams: streams.map((s) => ({
      index: s.index,
      type: s.type,
      name: s.name,
      size: s.size,
      rva: s.rva,
    })),
    bytesRead: 0,
    truncated: false,
    warnings: [],
  };
  const clr = findClrRuntime(modules);
  if (clr) result.clr = clr;
  if (writer) {
    result.writer = writer.writer;
    result.writerEvidence = writer.evidence;
  }
  if (handles) result.handles = handles;
  if (comments.length > 0) result.comments = comments;
  if (options.stacks) walked.applyStacks(result, await options.stacks(dump), extraWarnings);
  await notePastEndContexts(dump);
  const pastEnd = dump.pastEnd();
  if (pastEnd.size > 0) {
    result.truncated = true;
    result.pastEnd = Object.fromEntries(pastEnd);
  }
  for (const warning of extraWarnings) dump.warn(warning);
  // One line for a truncated file, first: not a warning per module name it cannot reach.
  const line = truncationLine(result);
  result.warnings = line === null ? dump.warnings() : [line, ...dump.warnings()];
  result.bytesRead = dump.bytesRead;
  return result;
}

function describeException(
  exception: NonNullable<Awaited<ReturnType<Minidump['exception']>>>,
  modules: readonly DumpModule[],
): InspectedException {
  const out: InspectedException = {
    threadId: exception.threadId,
    code: hex32(exception.code),
    name: exceptionName(exception.code, exception.parameters),
    flags: hex(exception.flags),
    address: hex(exception.address),
    parameters: exception.parameters.map((p) => hex(p)),
  };
  const av = accessViolationDetail(exception.code, exception.parameters);
  if (av) {
    if (av.access) out.accessType = av.access;
    out.accessAddress = hex(av.address);
  }
  const module = modules.find(
    (m) => exception.address >= m.base && exception.address < m.base + BigInt(m.size),
  );
  if (module) {
    out.module = module.name;
    out.moduleOffset = hex(exception.address - module.base);
  }
  if (exception.nestedRecord !== 0n) out.nested = true;
  const clr = clrExceptionDetail(exception.code, exception.parameters, modules);
  if (clr) out.clr = clr;
  return out;
}
