// ModuleList (4): 108-byte MINIDUMP_MODULE entries (minidumpapiset.h; 108 is the packed size, never
// sizeof), each with a name string, VS_FIXEDFILEINFO and an optional CodeView record.
import { codeIdOf } from '../../common/module-identity.js';
import { u32 } from '../bytes.js';
import { oldStyleList, type StreamContext } from '../stream-context.js';
import { parseCodeView, type CodeViewInfo } from './codeview.js';
import { readModuleIdentity, type ModuleIdentity } from './module-identity.js';

export const MODULE_ENTRY_SIZE = 108;
const VS_FFI_SIGNATURE = 0xfeef04bd;
/** A CodeView record is a header plus a path; anything this big is corrupt. */
const MAX_CV_RECORD = 64 * 1024;

export interface DumpModule extends ModuleIdentity {
  /** `a.b.c.d` from VS_FIXEDFILEINFO, when present. */
  fileVersion?: string;
  productVersion?: string;
  codeView?: CodeViewInfo;
  /** Key for fetching the binary from a symbol server: `%08X(timestamp)%x(size)`. */
  codeId: string;
}

export async function parseModuleList(ctx: StreamContext): Promise<DumpModule[]> {
  const { offset, count, entrySize } = oldStyleList(ctx, MODULE_ENTRY_SIZE);
  const modules: DumpModule[] = [];
  for (let i = 0; i < count; i++) {
    const at = offset + i * entrySize;
    const d = ctx.data;
    const identity = await readModuleIdentity(ctx, at, `module ${i}`);
    const { timeDateStamp, size } = identity;
    const module: DumpModule = {
      ...identity,
      codeId: codeIdOf(timeDateStamp, size),
    };
    if (u32(d, at + 24) === VS_FFI_SIGNATURE) {
      const fileVersion = version(u32(d, at + 32), u32(d, at + 36));
      const productVersion = version(u32(d, at + 40), u32(d, at + 44));
      if (fileVersion !== '0.0.0.0') module.fileVersion = fileVersion;
      if (productVersion !== '0.0.0.0') module.productVersion = productVersion;
    }
    const cvSize = u32(d, at + 76);
    const cvRva = u32(d, at + 80);
    if (cvSize > 0 && cvRva > 0) {
      if (cvSize > MAX_CV_RECORD || cvRva + cvSize > ctx.fileSize) {
        ctx.warn(
          `ModuleList: ${module.name || `module ${i}`}: CodeView record (${cvSize} bytes at 0x${cvRva.toString(16)}) is out of bounds`,
        );
      } else {
        module.codeView = parseCodeView(await ctx.read(cvRva, cvSize));
      }
    }
    modules.push(module);
  }
  return modules;
}

function version(ms: number, ls: number): string {
  return `${ms >>> 16}.${ms & 0xffff}.${ls >>> 16}.${ls & 0xffff}`;
}
