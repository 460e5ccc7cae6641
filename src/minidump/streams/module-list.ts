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
/**
 * More modules than any process loads (Windows processes with a few thousand DLLs are already
 * rare). A list claiming a million is hostile or corrupt: reading the first MAX_MODULES bounds
 * the time and memory one dump can take, and the warning says the list was cut.
 */
export const MAX_MODULES = 16_384;

export interface DumpModule extends ModuleIdentity {
  /** `a.b.c.d` from VS_FIXEDFILEINFO, when present. */
  fileVersion?: string;
  productVersion?: string;
  codeView?: CodeViewInfo;
  /** Key for fetching the binary from a symbol server: `%08X(timestamp)%x(size)`. */
  codeId: string;
}

export async function parseModuleList(ctx: StreamContext): Promise<DumpModule[]> {
  const layout = oldStyleList(ctx, MODULE_ENTRY_SIZE);
  const { offset, entrySize } = layout;
  let count = layout.count;
  const claimed = layout.claimed ?? count;
  if (claimed > MAX_MODULES) {
    ctx.warn(
      `ModuleList: claims ${claimed} modules, more than any process loads; only the first ${MAX_MODULES} are read (partial)`,
    );
    count = Math.min(count, MAX_MODULES);
  }
  const modules: DumpModule[] = [];
  for (let i = 0; i < count; i++) {
    const at = offset + i * entrySize;
    const d = ctx.data;
    // Without an await when the name is at hand (a dump held in memory): two promises a module.
    const read = readModuleIdentity(ctx, at, `module ${i}`);
    const identity = read instanceof Promise ? await read : read;
    const { timeDateStamp, size } = identity;
    // Field by field, not `{ ...identity, codeId }`: in V8 (Node 20) that spread copy was most
    // of the list's parse time, ~1 ms for a 26-module dump against ~0.3 ms this way.
    const module: DumpModule = {
      base: identity.base,
      size,
      checksum: identity.checksum,
      timeDateStamp,
      path: identity.path,
      name: identity.name,
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
      if (cvSize > MAX_CV_RECORD) {
        ctx.warn(
          `ModuleList: ${module.name || `module ${i}`}: CodeView record claims ${cvSize} bytes (at most ${MAX_CV_RECORD}); not read`,
          'ModuleList: CodeView record too large',
        );
      } else if (cvRva + cvSize > ctx.fileSize) {
        ctx.pastEnd('CodeView records');
      } else if (ctx.followReference(cvSize)) {
        // In range (checked above): read() would answer this same view of the held file.
        const held = ctx.heldBytes?.();
        const record =
          held === undefined ? await ctx.read(cvRva, cvSize) : held.subarray(cvRva, cvRva + cvSize);
        module.codeView = parseCodeView(record);
      }
    }
    modules.push(module);
  }
  return modules;
}

function version(ms: number, ls: number): string {
  return `${ms >>> 16}.${ms & 0xffff}.${ls >>> 16}.${ls & 0xffff}`;
}
