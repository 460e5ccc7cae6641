// UnloadedModuleList (14): a 12-byte header, then 24-byte entries {Base u64, Size, CheckSum,
// TimeDateStamp, NameRva} (notes §4.8).
import { u32, u64 } from '../bytes.js';
import { newStyleList, type StreamContext } from '../stream-context.js';
import { baseName } from './codeview.js';

export interface UnloadedModule {
  base: bigint;
  size: number;
  checksum: number;
  timeDateStamp: number;
  path: string;
  name: string;
}

export async function parseUnloadedModuleList(ctx: StreamContext): Promise<UnloadedModule[]> {
  const { offset, count, entrySize } = newStyleList(ctx, 24);
  const out: UnloadedModule[] = [];
  for (let i = 0; i < count; i++) {
    const at = offset + i * entrySize;
    const path =
      (await ctx.readString(u32(ctx.data, at + 20), `name of unloaded module ${i}`)) ?? '';
    out.push({
      base: u64(ctx.data, at),
      size: u32(ctx.data, at + 8),
      checksum: u32(ctx.data, at + 12),
      timeDateStamp: u32(ctx.data, at + 16),
      path,
      name: baseName(path),
    });
  }
  return out;
}
