// ProcessVmCounters (22): PROCESS_VM_COUNTERS_1 (80 B packed) or _2 (152 B, with Revision/Flags and the
// virtual sizes); minidumpapiset.h. PrivateUsage is the commit charge, the number heap trends want.
import { u16, u32, u64 } from '../bytes.js';
import type { StreamContext } from '../stream-context.js';

export interface ProcessVmCounters {
  revision: number;
  pageFaultCount: number;
  peakWorkingSetSize: number;
  workingSetSize: number;
  pagefileUsage: number;
  peakPagefileUsage: number;
  privateUsage: number;
  virtualSize?: number;
  peakVirtualSize?: number;
  privateWorkingSetSize?: number;
}

export function parseProcessVmCounters(ctx: StreamContext): ProcessVmCounters | null {
  const { data } = ctx;
  const n = (offset: number) => Number(u64(data, offset));
  const revision = data.length >= 152 ? u16(data, 0) : 1;
  if (revision >= 2 && data.length >= 152) {
    return {
      revision,
      pageFaultCount: u32(data, 4),
      peakWorkingSetSize: n(8),
      workingSetSize: n(16),
      pagefileUsage: n(56),
      peakPagefileUsage: n(64),
      peakVirtualSize: n(72),
      virtualSize: n(80),
      privateUsage: n(88),
      privateWorkingSetSize: n(96),
    };
  }
  if (data.length >= 80) {
    // MINIDUMP_PROCESS_VM_COUNTERS_1 packed to 4: Revision u16 (+2 pad), PageFaultCount u32 at 4,
    // then nine u64s from 8, PrivateUsage last at 72 (80 bytes; none seen in the samples yet).
    return {
      revision: u16(data, 0),
      pageFaultCount: u32(data, 4),
      peakWorkingSetSize: n(8),
      workingSetSize: n(16),
      pagefileUsage: n(56),
      peakPagefileUsage: n(64),
      privateUsage: n(72),
    };
  }
  ctx.warn(`ProcessVmCounters: ${data.length}-byte stream is too short (80 or 152 bytes expected)`);
  return null;
}
