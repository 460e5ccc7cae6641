// MINIDUMP_MODULE and MINIDUMP_UNLOADED_MODULE begin with the same 24 bytes: BaseOfImage (u64),
// SizeOfImage, CheckSum, TimeDateStamp, ModuleNameRva (minidumpapiset.h). Read once, here.
import { u32, u64 } from '../bytes.js';
import type { StreamContext } from '../stream-context.js';
import { baseName } from './codeview.js';

export interface ModuleIdentity {
  base: bigint;
  size: number;
  checksum: number;
  /** PE TimeDateStamp (a link time or, for reproducible builds, a hash). */
  timeDateStamp: number;
  /** Full path as the writer recorded it ('' when the name string is unreadable). */
  path: string;
  /** The file-name part of path. */
  name: string;
}

/**
 * `what` names the entry in the warning about an unreadable name (`module 3`). Answers without a
 * promise when the name needs no file read (StreamContext.readString).
 */
export function readModuleIdentity(
  ctx: StreamContext,
  at: number,
  what: string,
): ModuleIdentity | Promise<ModuleIdentity> {
  const path = ctx.readString(u32(ctx.data, at + 20), `name of ${what}`);
  if (path instanceof Promise) return path.then((text) => identityAt(ctx.data, at, text ?? ''));
  return identityAt(ctx.data, at, path ?? '');
}

function identityAt(data: Buffer, at: number, path: string): ModuleIdentity {
  return {
    base: u64(data, at),
    size: u32(data, at + 8),
    checksum: u32(data, at + 12),
    timeDateStamp: u32(data, at + 16),
    path,
    name: baseName(path),
  };
}
