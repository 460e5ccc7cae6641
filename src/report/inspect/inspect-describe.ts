// How inspect describes one thread and one module of a dump: plain data for `inspect --json`,
// with times as ISO 8601 (the u32 epoch kept beside as `timestampEpoch`).
import { hex } from '../../minidump/bytes.js';
import { fileTimeToIso, ThreadDumpFlags } from '../../minidump/streams/thread-info-list.js';
import type { ProcessModule, ProcessThread } from '../../processor/process-state.js';
import type { InspectedModule, InspectedThread } from './inspect-json.js';
import { stackJson } from './inspect-stacks.js';

export function describeThread(thread: ProcessThread): InspectedThread {
  const out: InspectedThread = {
    id: thread.id,
    suspendCount: thread.suspendCount,
    teb: hex(thread.teb),
    stackStart: hex(thread.stack.start),
    stackSize: thread.stack.size,
    priority: thread.priority,
    priorityClass: thread.priorityClass,
  };
  if (thread.name !== undefined) out.name = thread.name;
  if (thread.faulting) out.faulting = true;
  if (thread.writingThread === true) out.writingThread = true;
  const info = thread.info;
  if (info) {
    if ((info.dumpFlags & ThreadDumpFlags.WritingThread) !== 0) out.writingThread = true;
    const created = fileTimeToIso(info.createTime);
    if (created !== undefined) out.createTime = created;
    out.userTimeMs = Number(info.userTime / 10_000n);
    out.kernelTimeMs = Number(info.kernelTime / 10_000n);
    if (info.startAddress !== 0n) out.startAddress = hex(info.startAddress);
  }
  if (thread.callStack !== undefined) out.stack = stackJson(thread.callStack);
  return out;
}

export function describeModule(module: ProcessModule): InspectedModule {
  const out: InspectedModule = {
    base: hex(module.base),
    size: module.size,
    path: module.path,
    name: module.name,
    timestamp: epochToIso(module.timestamp),
    timestampEpoch: module.timestamp,
    checksum: module.checksum,
    codeId: module.codeId,
  };
  if (module.fileVersion !== undefined) out.fileVersion = module.fileVersion;
  const cv = module.codeView;
  if (cv?.pdbName !== undefined) out.pdbName = cv.pdbName;
  if (cv?.pdbPath !== undefined) out.pdbPath = cv.pdbPath;
  if (cv?.debugId !== undefined) out.debugId = cv.debugId;
  return out;
}

/** Seconds since 1970 (a u32 time stamp) as ISO 8601. */
export function epochToIso(seconds: number): string {
  return new Date(seconds * 1000).toISOString();
}
