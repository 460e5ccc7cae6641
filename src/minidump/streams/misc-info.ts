// MiscInfo (stream 15), versions 1–5 told apart by SizeOfInfo (minidumpapiset.h). A field counts only
// when it lies inside SizeOfInfo (and inside the stream) and its Flags1 bit is set.
import { u32, wcharField } from '../bytes.js';
import type { StreamContext } from '../stream-context.js';

const FLAG_PROCESS_ID = 0x1;
const FLAG_PROCESS_TIMES = 0x2;
const FLAG_POWER_INFO = 0x4;
const FLAG_INTEGRITY = 0x10;
const FLAG_EXECUTE_FLAGS = 0x20;
const FLAG_TIMEZONE = 0x40;
const FLAG_PROTECTED = 0x80;
const FLAG_BUILD_STRINGS = 0x100;
const FLAG_PROCESS_COOKIE = 0x200;

export interface MiscInfo {
  /** 1–5, from SizeOfInfo (24, 44, 232, 832, 1364). */
  version: number;
  sizeOfInfo: number;
  flags1: number;
  processId?: number;
  /** time_t (UTC seconds) the process was created. */
  processCreateTime?: number;
  processUserTimeSeconds?: number;
  processKernelTimeSeconds?: number;
  processorMaxMhz?: number;
  processorCurrentMhz?: number;
  integrityLevel?: number;
  executeFlags?: number;
  protectedProcess?: number;
  timeZoneId?: number;
  timeZoneBias?: number;
  timeZoneStandardName?: string;
  timeZoneDaylightName?: string;
  /** The OS build string, e.g. `19041.1.amd64fre.vb_release.191206-1406`. */
  buildString?: string;
  /** The writer's build string, e.g. `dbgcore.amd64,10.0.19041.1` (identifies the writer). */
  dbgBuildString?: string;
  processCookie?: number;
}

const SIZES: readonly [number, number][] = [
  [1364, 5],
  [832, 4],
  [232, 3],
  [44, 2],
  [24, 1],
];

export function parseMiscInfo(ctx: StreamContext): MiscInfo | null {
  const { data } = ctx;
  if (data.length < 24) {
    ctx.warn(`MiscInfo: ${data.length}-byte stream is shorter than a version-1 record (24 bytes)`);
    return null;
  }
  const sizeOfInfo = u32(data, 0);
  const flags1 = u32(data, 4);
  const limit = Math.min(sizeOfInfo, data.length);
  const version = SIZES.find(([size]) => limit >= size)?.[1] ?? 1;
  if (!SIZES.some(([size]) => size === sizeOfInfo)) {
    ctx.warn(`MiscInfo: unexpected SizeOfInfo ${sizeOfInfo}; read as version ${version}`);
  }
  const has = (flag: number, end: number) => (flags1 & flag) !== 0 && end <= limit;
  const info: MiscInfo = { version, sizeOfInfo, flags1 };
  if (has(FLAG_PROCESS_ID, 12)) info.processId = u32(data, 8);
  if (has(FLAG_PROCESS_TIMES, 24)) {
    info.processCreateTime = u32(data, 12);
    info.processUserTimeSeconds = u32(data, 16);
    info.processKernelTimeSeconds = u32(data, 20);
  }
  if (has(FLAG_POWER_INFO, 44)) {
    info.processorMaxMhz = u32(data, 24);
    info.processorCurrentMhz = u32(data, 28);
  }
  if (has(FLAG_INTEGRITY, 48)) info.integrityLevel = u32(data, 44);
  if (has(FLAG_EXECUTE_FLAGS, 52)) info.executeFlags = u32(data, 48);
  if (has(FLAG_PROTECTED, 56)) info.protectedProcess = u32(data, 52);
  if (has(FLAG_TIMEZONE, 232)) {
    info.timeZoneId = u32(data, 56);
    info.timeZoneBias = data.readInt32LE(60);
    info.timeZoneStandardName = wcharField(data, 64, 32);
    info.timeZoneDaylightName = wcharField(data, 148, 32);
  }
  if (has(FLAG_BUILD_STRINGS, 832)) {
    info.buildString = wcharField(data, 232, 260);
    info.dbgBuildString = wcharField(data, 752, 40);
  }
  if (has(FLAG_PROCESS_COOKIE, 1364)) info.processCookie = u32(data, 1360);
  return info;
}
