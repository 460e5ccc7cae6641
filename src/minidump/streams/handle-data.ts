// HandleData (12): a 16-byte header, then 32-byte (or 40-byte _2) descriptors with type and
// object name strings (minidumpapiset.h). Summarised by type name: a handle leak shows as a count.
import { u32 } from '../bytes.js';
import { newStyleList, type StreamContext } from '../stream-context.js';
import { dict } from '../../common/dict.js';

export interface HandleSummary {
  count: number;
  /** Handles per object type name; `(unnamed)` for descriptors without one. */
  byType: Record<string, number>;
}

/** A leaking process can hold 100k handles; names are read only for the distinct RVAs. */
export async function parseHandleData(ctx: StreamContext): Promise<HandleSummary> {
  const { offset, count, entrySize } = newStyleList(ctx, 32);
  const byType: Record<string, number> = dict();
  const typeNames = new Map<number, string>();
  for (let i = 0; i < count; i++) {
    const at = offset + i * entrySize;
    const typeRva = u32(ctx.data, at + 8);
    let type = typeNames.get(typeRva);
    if (type === undefined) {
      type =
        typeRva === 0
          ? '(unnamed)'
          : ((await ctx.readString(typeRva, `handle ${i} type name`)) ?? '(unreadable)');
      typeNames.set(typeRva, type);
    }
    byType[type] = (byType[type] ?? 0) + 1;
  }
  return { count, byType };
}
