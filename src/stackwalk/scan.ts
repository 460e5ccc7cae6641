// The last-resort unwinder (Breakpad's and rust-minidump's "scan"): the first stack word above
// the stack pointer that looks like a return address. With the module's image at hand a word
// counts only when it points into an executable section just after a `call` instruction
// (trust `scan-call`); without an image the same check runs on the code bytes the dump itself
// captured there (full dumps, winedbg's, the bytes around a crash), and only where the dump has
// none does any word inside a module past its header page count (trust `scan`). With a symbol
// file loaded for the module, the byte before the word must lie in a function it knows and the
// word must not be a function's first byte (a function pointer: no call returns there).
// Breakpad's StackwalkerX86 and rust-minidump only ask that a symbol name the address
// (https://chromium.googlesource.com/breakpad/breakpad/+/HEAD/src/processor/stackwalker.cc,
// InstructionAddressSeemsValid). Call encodings from the Intel SDM, CALL: e8 rel32, ff /2 with
// every ModRM form.
import type { FrameTrust, ImageView, ModuleRef } from './types.js';
import type { WalkMemory } from './walk-memory.js';

/** A value, or a promise of it when it had to wait: the walk awaits only what waits. */
export type Maybe<T> = T | Promise<T>;

/** True for a promise (answers that had to wait); SymbolHit and ImageView objects have no `then`. */
export function waits<T>(value: Maybe<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function';
}

export interface ModuleIndex {
  at(address: bigint): ModuleRef | undefined;
  /**
   * at() for an address given as a number; only there when every module lies below 2^53, so an
   * address at or above it (or any word whose high half is 2^21 or more) is in no module.
   */
  atNumber?(address: number): ModuleRef | undefined;
  image(module: ModuleRef): Maybe<ImageView | undefined>;
  /**
   * False when a symbol file loaded for `module` puts `returnRva - 1` (the call's last byte) in
   * no function, or `returnRva` at a function's first byte; true otherwise, or when no symbol
   * file bounds the module.
   */
  inFunction?(module: ModuleRef, returnRva: number): Maybe<boolean>;
}

export interface ScanHit {
  /** The return address found. */
  ip: bigint;
  /** Where it was on the stack. */
  slot: bigint;
  trust: Extract<FrameTrust, 'scan' | 'scan-call'>;
}

/** No code lives in the first page of an image (the PE headers). */
const HEADER_BYTES = 0x1000n;

/** True when the bytes just before `returnRva` end with a call instruction. */
export function endsWithCall(before: Uint8Array): boolean {
  const n = before.length;
  const at = (back: number) => (back <= n ? (before[n - back] ?? -1) : -1);
  const reg = (modrm: number) => (modrm >> 3) & 7;
  // e8 rel32
  if (at(5) === 0xe8) return true;
  // ff /2, mod 3 (call reg): ff d0..d7, 41 ff d0..d7
  if (at(2) === 0xff && reg(at(1)) === 2 && at(1) >> 6 === 3) return true;
  // ff /2 [reg] (mod 0, not rbp/rsp forms): ff 10..17
  if (
    at(2) === 0xff &&
    reg(at(1)) === 2 &&
    at(1) >> 6 === 0 &&
    (at(1) & 7) !== 4 &&
    (at(1) & 7) !== 5
  )
    return true;
  // ff /2 [reg+disp8]: ff 50..57 XX; with SIB: ff 54 SS XX
  if (at(3) === 0xff && reg(at(2)) === 2 && at(2) >> 6 === 1 && (at(2) & 7) !== 4) return true;
  if (at(4) === 0xff && reg(at(3)) === 2 && at(3) >> 6 === 1 && (at(3) & 7) === 4) return true;
  // ff /2 [rip+disp32] or [reg+disp32]: ff 15 XXXXXXXX, ff 90..97 XXXXXXXX; with SIB: ff 94 SS …
  if (
    at(6) === 0xff &&
    reg(at(5)) === 2 &&
    (at(5) === 0x15 || (at(5) >> 6 === 2 && (at(5) & 7) !== 4))
  )
    return true;
  if (at(7) === 0xff && reg(at(6)) === 2 && at(6) >> 6 === 2 && (at(6) & 7) === 4) return true;
  // ff /2 [sib] (mod 0): ff 14 SS
  if (at(3) === 0xff && at(2) === 0x14) return true;
  return false;
}

/**
 * Does `value` look like a return address? Which trust would it get? `memory`: the target's
 * memory, for the code bytes before `value` when no image is at hand.
 */
export function returnAddressTrust(
  value: bigint,
  modules: ModuleIndex,
  memory?: WalkMemory,
): Maybe<ScanHit['trust'] | null> {
  const module = modules.at(value);
  if (module === undefined) return null;
  const offset = value - module.base;
  if (offset < HEADER_BYTES) return null;
  const rva = Number(offset);
  // rust-minidump's instruction_seems_valid and Breakpad's InstructionAddressSeemsValid: with
  // symbols loaded, a return address must fall inside a function they know.
  if (modules.inFunction !== undefined) {
    const inside = modules.inFunction(module, rva);
    if (waits(inside)) {
      return inside.then((yes) => (yes ? byImage(module, value, rva, modules, memory) : null));
    }
    if (!inside) return null;
  }
  return byImage(module, value, rva, modules, memory);
}

function byImage(
  module: ModuleRef,
  value: bigint,
  rva: number,
  modules: ModuleIndex,
  memory: WalkMemory | undefined,
): Maybe<ScanHit['trust'] | null> {
  const image = modules.image(module);
  if (waits(image)) return image.then((found) => inImage(found, value, rva, memory));
  return inImage(image, value, rva, memory);
}

function inImage(
  image: ImageView | undefined,
  value: bigint,
  rva: number,
  memory: WalkMemory | undefined,
): Maybe<ScanHit['trust'] | null> {
  if (image === undefined) return memory === undefined ? 'scan' : inDumpCode(value, memory);
  if (!image.isExecutable(rva - 1)) return null;
  // Candidates recur in every dump of a build: the answer is kept per image (bounded), so only
  // the first dump reads the code bytes.
  let checks = CALL_CHECKS.get(image);
  if (checks === undefined) {
    checks = new Map();
    CALL_CHECKS.set(image, checks);
  }
  const known = checks.get(rva);
  if (known !== undefined) return known ? 'scan-call' : null;
  const kept = checks;
  return image.readRva(rva - 7, 7).then((before) => {
    const call = before !== null && before.length >= 7 && endsWithCall(before);
    if (kept.size < MAX_CALL_CHECKS) kept.set(rva, call);
    return call ? 'scan-call' : null;
  });
}

/**
 * No image: the call check on the code bytes the dump captured before `value` (winedbg's dumps
 * and full dumps hold code pages; a MiniDumpNormal the bytes around the crash). Not captured:
 * `scan`, as before.
 */
function inDumpCode(value: bigint, memory: WalkMemory): Maybe<ScanHit['trust'] | null> {
  const before = memory.codeNow(value - 7n, 7);
  if (before !== undefined) return callTrust(before);
  return memory.code(value - 7n, 7).then(callTrust);
}

function callTrust(before: Uint8Array | null): ScanHit['trust'] | null {
  if (before === null || before.length < 7) return 'scan';
  return endsWithCall(before) ? 'scan-call' : null;
}

/** Whether a call ends just before a return address, by image and return-address RVA. */
const CALL_CHECKS = new WeakMap<ImageView, Map<number, boolean>>();
/** Per image; past this, answers are read again each time (images themselves are bounded). */
const MAX_CALL_CHECKS = 1024;

/** The first plausible return address in [from, limit), one word at a time. */
export async function scanForReturn(
  from: bigint,
  limit: bigint,
  wordSize: 4 | 8,
  memory: WalkMemory,
  modules: ModuleIndex,
): Promise<ScanHit | null> {
  const size = BigInt(wordSize);
  const atNumber = modules.atNumber?.bind(modules);
  // Stack slots are word aligned; a misaligned stack pointer is corrupt anyway.
  let slot = from - (from % size);
  while (slot + size <= limit) {
    // A block of words up to the next 512-byte line, read once.
    const lineEnd = slot - (slot % 512n) + 512n;
    const blockEnd = lineEnd < limit ? lineEnd : limit - ((limit - slot) % size);
    const length = Number(blockEnd - slot);
    let block = memory.bytesNow(slot, length);
    if (block === undefined) block = await memory.bytes(slot, length);
    if (block === null) return scanWords(slot, limit, wordSize, memory, modules);
    const view = new DataView(block.buffer, block.byteOffset, block.byteLength);
    for (let at = 0; at + wordSize <= block.length; at += wordSize) {
      // Most words are in no module: with module bounds as numbers they are passed over
      // without making a BigInt of each.
      if (atNumber !== undefined) {
        const low = view.getUint32(at, true);
        const high = wordSize === 8 ? view.getUint32(at + 4, true) : 0;
        if (high >= 0x20_0000 || atNumber(high * 0x1_0000_0000 + low) === undefined) continue;
      }
      const value = wordSize === 8 ? view.getBigUint64(at, true) : BigInt(view.getUint32(at, true));
      if (modules.at(value) === undefined) continue;
      let trust = returnAddressTrust(value, modules, memory);
      if (waits(trust)) trust = await trust;
      if (trust !== null) return { ip: value, slot: slot + BigInt(at), trust };
    }
    slot = blockEnd;
  }
  return null;
}

/** Word by word, for the part of a block that was not captured in one piece. */
async function scanWords(
  from: bigint,
  limit: bigint,
  wordSize: 4 | 8,
  memory: WalkMemory,
  modules: ModuleIndex,
): Promise<ScanHit | null> {
  const size = BigInt(wordSize);
  for (let slot = from; slot + size <= limit; slot += size) {
    const value = await memory.word(slot, wordSize);
    if (value === null) return null;
    const trust = await returnAddressTrust(value, modules, memory);
    if (trust !== null) return { ip: value, slot, trust };
  }
  return null;
}
