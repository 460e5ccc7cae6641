// SystemInfo (stream 7, 56 bytes; minidumpapiset.h), plus the "WINE" blob Wine's dbghelp writes right
// after it (before the CSD string): "WINE", then {count u32, count × offset u32} with each offset
// counted from that count field (seen: 3, 0x10, 0x2f, 0x35), to NUL-terminated strings: the Wine
// build, the host system name and its release.
import { cString, u16, u32, u8 } from '../bytes.js';
import type { StreamContext } from '../stream-context.js';

export const SYSTEM_INFO_SIZE = 56;
const WINE_MAGIC = 0x454e4957; // "WINE" as a little-endian u32
const MAX_WINE_BLOB = 1024;

export interface SystemInfo {
  /** `x86`, `amd64`, `arm`, `arm64`, `ia64`, … or `unknown(0x…)`. */
  arch: string;
  processorArchitecture: number;
  processorLevel: number;
  processorRevision: number;
  cpuCount: number;
  /** 1 workstation, 2 domain controller, 3 server. */
  productType: number;
  majorVersion: number;
  minorVersion: number;
  buildNumber: number;
  /** `major.minor.build`, e.g. `10.0.19042`. */
  osVersion: string;
  platformId: number;
  /** `windows`, `linux`, `macos`, … from PlatformId. */
  platform: string;
  /** Service pack or UBR text; null when absent. */
  csd: string | null;
  suiteMask: number;
  /** x86 only: the CPUID vendor string (GenuineIntel, AuthenticAMD). */
  cpuVendor?: string;
  /** Present in Wine's dumps: e.g. `{build: "wine-8.0 (Debian 8.0~repack-4)", host: "Linux 6.1"}`. */
  wine?: { build: string; hostSystem?: string; hostRelease?: string };
}

const ARCHES = new Map<number, string>([
  [0, 'x86'],
  [5, 'arm'],
  [6, 'ia64'],
  [9, 'amd64'],
  [12, 'arm64'],
  [14, 'x86-on-arm64'],
  [0x8001, 'sparc'],
  [0x8002, 'ppc64'],
  [0x8003, 'arm64'],
  [0x8004, 'mips64'],
]);

const PLATFORMS = new Map<number, string>([
  [0, 'win32s'],
  [1, 'windows-9x'],
  [2, 'windows'],
  [3, 'windows-ce'],
  [0x8000, 'unix'],
  [0x8101, 'macos'],
  [0x8102, 'ios'],
  [0x8201, 'linux'],
  [0x8202, 'solaris'],
  [0x8203, 'android'],
  [0x8204, 'ps3'],
  [0x8205, 'nacl'],
  [0x8206, 'fuchsia'],
]);

export function archName(processorArchitecture: number): string {
  return ARCHES.get(processorArchitecture) ?? `unknown(0x${processorArchitecture.toString(16)})`;
}

export async function parseSystemInfo(ctx: StreamContext): Promise<SystemInfo | null> {
  const { data } = ctx;
  if (data.length < SYSTEM_INFO_SIZE) {
    ctx.warn(
      `SystemInfo: ${data.length}-byte stream is shorter than the ${SYSTEM_INFO_SIZE}-byte record`,
    );
    return null;
  }
  const processorArchitecture = u16(data, 0);
  const majorVersion = u32(data, 8);
  const minorVersion = u32(data, 12);
  const buildNumber = u32(data, 16);
  const platformId = u32(data, 20);
  const csdRva = u32(data, 24);
  const info: SystemInfo = {
    arch: archName(processorArchitecture),
    processorArchitecture,
    processorLevel: u16(data, 2),
    processorRevision: u16(data, 4),
    cpuCount: u8(data, 6),
    productType: u8(data, 7),
    majorVersion,
    minorVersion,
    buildNumber,
    osVersion: `${majorVersion}.${minorVersion}.${buildNumber}`,
    platformId,
    platform: PLATFORMS.get(platformId) ?? `unknown(0x${platformId.toString(16)})`,
    csd: csdRva === 0 ? null : await ctx.readString(csdRva, 'SystemInfo CSD version'),
    suiteMask: u16(data, 28),
  };
  if (processorArchitecture === 0) {
    // Sample: "GenuineIntel" (12 bytes, NUL-padded when shorter); anything unprintable is not a vendor.
    const vendor = data.toString('latin1', 32, 44).replace(/\0+$/, '');
    if (/^[\x20-\x7e]+$/.test(vendor)) info.cpuVendor = vendor;
  }
  const wine = await readWineBlob(ctx, csdRva);
  if (wine) info.wine = wine;
  return info;
}

async function readWineBlob(
  ctx: StreamContext,
  csdRva: number,
): Promise<SystemInfo['wine'] | undefined> {
  const start = ctx.info.rva + SYSTEM_INFO_SIZE;
  // The blob sits between the record and the CSD string; without that gap there is none.
  if (csdRva <= start + 8 || csdRva - start > MAX_WINE_BLOB || csdRva > ctx.fileSize)
    return undefined;
  const blob = await ctx.read(start, csdRva - start);
  if (u32(blob, 0) !== WINE_MAGIC) return undefined;
  const count = Math.min(u32(blob, 4), Math.floor((blob.length - 8) / 4), 8);
  const strings: string[] = [];
  for (let i = 0; i < count; i++) {
    const at = 4 + u32(blob, 8 + i * 4);
    if (at < 8 + count * 4 || at >= blob.length) break;
    strings.push(cString(blob, at));
  }
  const [build, hostSystem, hostRelease] = strings;
  if (build === undefined) return undefined;
  return {
    build,
    ...(hostSystem === undefined ? {} : { hostSystem }),
    ...(hostRelease === undefined ? {} : { hostRelease }),
  };
}
