// winedbg `info maps <pid>`: one row per VirtualQueryEx region of another process, printed by
// winedbg's info_win32_virtual(). It works from a winedbg that is NOT attached (OpenProcess +
// VirtualQueryEx), so the target is never suspended (test/heap-trend/winedbg-e2e.test.ts samples
// a running leak.exe this way; test/heap-trend/winedbg-info-maps.test.ts reads captured rows).
// winedbg has no heap command; the sum of `commit private` rows is the committed-memory view
// heap-trend uses, and the dump workflow uses it to estimate how big a dump will be.
//
// The RWX column is the region's ALLOCATION protection (mbi.AllocationProtect), so it is the same for
// every row of one reservation; `C` means copy-on-write. Free rows print neither type nor RWX.
import type { RecordBase } from './records.js';
import { createWarningList, unplaced } from './warning-list.js';

export type WinedbgMapState = 'commit' | 'reserve' | 'free' | 'unknown';
export type WinedbgMapType = 'private' | 'mapped' | 'image' | 'unknown' | null;

export interface WinedbgMapRegion {
  /** `0x` + lower-case hex, no padding (the records' address convention, src/parsers/records.ts). */
  start: string;
  /** Inclusive last byte, as printed. */
  end: string;
  state: WinedbgMapState;
  /** null for free rows (winedbg prints no type for them). */
  type: WinedbgMapType;
  /** The RWX column as printed, trimmed (`RW`, `RCX`, `R`); empty for free rows. */
  protect: string;
  /** Bytes: end - start + 1. */
  size: number;
}

export interface WinedbgInfoMapsRecord extends RecordBase {
  regions: WinedbgMapRegion[];
  /** Sum of the sizes of `commit` + `private` rows: what the process has committed for itself. */
  committedPrivateBytes: number;
  /** Sum of `reserve` + `private` rows. */
  reservedPrivateBytes: number;
  /** Sum of every non-free row. */
  committedBytes: number;
  /** The header row was seen (a reply with no header and no rows is not a maps listing). */
  sawHeader: boolean;
  /** winedbg could not open the process (it has exited, or never existed): the line it printed. */
  error?: string;
}

// Address  End      State   Type    RWX
const HEADER_RE = /^\s*Address\s+End\s+State\s+Type\s+RWX\s*$/;
// Cannot open process <1869f>
const CANNOT_OPEN_RE = /^\s*Cannot open process <([0-9a-f]+)>\s*$/i;
// 0000000000340000 000000000034ffff commit  private RW
// 000000007b000000 000000007b000fff commit  image   RCX
// 0000000000010000 0000000000011fff commit  mapped  R
// 0000000000012000 000000000001ffff free
// (32-bit winedbg prints 8-digit addresses; `???` is winedbg's text for a state or type it does
// not know.)
const ROW_RE =
  /^\s*([0-9a-f]{8,16})\s+([0-9a-f]{8,16})\s+(commit|reserve|free|\?\?\?)(?:\s+(private|mapped|image|\?\?\?))?(?:\s+([RWCX]{1,3}))?\s*$/i;

const STATES: Record<string, WinedbgMapState> = {
  commit: 'commit',
  reserve: 'reserve',
  free: 'free',
};
const TYPES: Record<string, Exclude<WinedbgMapType, null>> = {
  private: 'private',
  mapped: 'mapped',
  image: 'image',
};

function hexAddress(digits: string): string {
  const trimmed = digits.toLowerCase().replace(/^0+(?=.)/, '');
  return `0x${trimmed}`;
}

/** Parses one row; null when the line is not a maps row. */
export function parseWinedbgMapRow(line: string): WinedbgMapRegion | null {
  const match = ROW_RE.exec(line);
  if (!match) return null;
  const [, startText = '', endText = '', stateText = '', typeText, protectText] = match;
  // BigInt: 64-bit addresses pass 2^53; region sizes themselves always fit a double exactly.
  const startValue = BigInt(`0x${startText}`);
  const endValue = BigInt(`0x${endText}`);
  if (endValue < startValue) return null;
  const state = STATES[stateText.toLowerCase()] ?? 'unknown';
  const type: WinedbgMapType =
    state === 'free' && typeText === undefined
      ? null
      : typeText === undefined
        ? null
        : (TYPES[typeText.toLowerCase()] ?? 'unknown');
  return {
    start: hexAddress(startText),
    end: hexAddress(endText),
    state,
    type,
    protect: (protectText ?? '').toUpperCase(),
    size: Number(endValue - startValue + 1n),
  };
}

/** Parses the whole reply to `info maps <pid>`; never throws. */
export function parseWinedbgInfoMaps(text: string): WinedbgInfoMapsRecord {
  const warnings = createWarningList();
  const regions: WinedbgMapRegion[] = [];
  let sawHeader = false;
  let committedPrivateBytes = 0;
  let reservedPrivateBytes = 0;
  let committedBytes = 0;
  let error: string | undefined;
  for (const raw of text.split(/\r*\n/)) {
    const line = raw.replace(/\r/g, '');
    if (line.trim() === '' || /^\s*Wine-dbg>\s*(?:info maps\b.*)?$/.test(line)) continue;
    if (/^\s*info maps\b/.test(line)) continue;
    if (HEADER_RE.test(line)) {
      sawHeader = true;
      continue;
    }
    if (CANNOT_OPEN_RE.test(line)) {
      error = line.trim();
      continue;
    }
    const region = parseWinedbgMapRow(line);
    if (region === null) {
      warnings.add(unplaced(line));
      continue;
    }
    regions.push(region);
    if (region.state === 'commit') committedBytes += region.size;
    if (region.type === 'private') {
      if (region.state === 'commit') committedPrivateBytes += region.size;
      else if (region.state === 'reserve') reservedPrivateBytes += region.size;
    }
  }
  return {
    regions,
    committedPrivateBytes,
    reservedPrivateBytes,
    committedBytes,
    sawHeader,
    ...(error === undefined ? {} : { error }),
    warnings: warnings.list(),
  };
}
