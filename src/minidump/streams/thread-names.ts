// ThreadNames (24): count, then 12-byte entries {ThreadId u32, RvaOfThreadName u64} (minidumpapiset.h).
// The only RVA in the format that is 64-bit besides the Memory64 base.
import { safeNumber, u32, u64 } from '../bytes.js';
import { oldStyleList, type StreamContext } from '../stream-context.js';

/** Thread id → name; entries whose string cannot be read are left out (with a warning). */
export async function parseThreadNames(ctx: StreamContext): Promise<Map<number, string>> {
  const { offset, count, entrySize } = oldStyleList(ctx, 12);
  const names = new Map<number, string>();
  for (let i = 0; i < count; i++) {
    const at = offset + i * entrySize;
    const id = u32(ctx.data, at);
    const rva = safeNumber(u64(ctx.data, at + 4));
    if (rva === undefined) {
      ctx.warn(`ThreadNames: thread ${id}'s name RVA is past any file offset`);
      continue;
    }
    if (rva === 0) continue;
    const name = await ctx.readString(rva, `name of thread ${id}`);
    if (name !== null) names.set(id, name);
  }
  return names;
}
