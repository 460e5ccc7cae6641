// UnloadedModuleList (14): a 12-byte header, then 24-byte entries {Base u64, Size, CheckSum,
// TimeDateStamp, NameRva} (minidumpapiset.h).
import { newStyleList, type StreamContext } from '../stream-context.js';
import { readModuleIdentity, type ModuleIdentity } from './module-identity.js';

export type UnloadedModule = ModuleIdentity;

export async function parseUnloadedModuleList(ctx: StreamContext): Promise<UnloadedModule[]> {
  const { offset, count, entrySize } = newStyleList(ctx, 24);
  const out: UnloadedModule[] = [];
  for (let i = 0; i < count; i++) {
    out.push(await readModuleIdentity(ctx, offset + i * entrySize, `unloaded module ${i}`));
  }
  return out;
}
