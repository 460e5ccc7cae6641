// Seeded mutations of minidumps for the fuzz tier (test/fuzz/) and the fuzz batch bench
// (bench/fuzz-batch.ts): bytes flipped, u32 fields set to hostile values, files cut short,
// directory entries given a hostile size or RVA.

const HOSTILE_U32 = [0, 1, 0x7fffffff, 0x80000000, 0xfffffff0, 0xffffffff];

/** mulberry32: a small seeded generator, so a failing case can be made again. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One mutated copy of `source`; what was done is in the returned label. */
export function mutate(source: Buffer, next: () => number): { bytes: Buffer; label: string } {
  const bytes = Buffer.from(source);
  const pick = (n: number) => Math.floor(next() * n);
  const kind = pick(4);
  if (kind === 0) {
    const n = 1 + pick(64);
    for (let i = 0; i < n; i++) bytes[pick(bytes.length)] = pick(256);
    return { bytes, label: `flip ${n} bytes` };
  }
  if (kind === 1) {
    const n = 1 + pick(16);
    for (let i = 0; i < n; i++) {
      const at = pick(bytes.length - 4) & ~3;
      bytes.writeUInt32LE(HOSTILE_U32[pick(HOSTILE_U32.length)]!, at);
    }
    return { bytes, label: `${n} hostile u32` };
  }
  if (kind === 2) {
    const length = pick(bytes.length);
    return { bytes: bytes.subarray(0, length), label: `cut at ${length}` };
  }
  // A directory entry's size or RVA set to something hostile.
  const streams = bytes.readUInt32LE(8);
  const directory = bytes.readUInt32LE(12);
  const entry = directory + 12 * pick(Math.max(1, Math.min(streams, 64)));
  if (entry + 12 <= bytes.length) {
    bytes.writeUInt32LE(HOSTILE_U32[pick(HOSTILE_U32.length)]!, entry + 4 + 4 * pick(2));
  }
  return { bytes, label: 'directory entry' };
}
