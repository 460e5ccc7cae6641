// Crash signatures and bucket ids, algorithm `cdbh-sig-2` (docs/bucketing.md). A signature is
// readable text, `<exception> | <frame> | <frame> | <frame>`, and the bucket id is a hash of the
// algorithm id plus that text. The algorithm id is stored with every bucket so that a later
// change (new skip list, more frames) makes new ids instead of silently regrouping old ones
// (Sentry's versioned grouping); `--rebucket` recomputes them from stored records.
import { createHash } from 'node:crypto';
import type { AnalyzeBucketRef, AnalyzeDumpRecord, AnalyzeFrame } from './analyze-record.js';
import { DEFAULT_SKIP_MODULES, normalizeModuleName, skipListHash } from './skip-modules.js';

export const SIGNATURE_ALGORITHM = 'cdbh-sig-2';

/** How many relevant frames a signature keeps (Socorro keeps a prefix; BugId hashes 2–3). */
export const SIGNATURE_FRAMES = 3;

const ACCESS_VIOLATION = '0xc0000005';
const IN_PAGE_ERROR = '0xc0000006';

export interface SignatureOptions {
  /** Modules whose frames are looked through. Defaults to DEFAULT_SKIP_MODULES. */
  skipModules?: readonly string[];
  /**
   * Symbol-aware signatures (`+names` on the algorithm id), for records named from symbol files:
   * frames are `module!function` when every signature frame has a function name, else
   * `module+0xoff` for all of them, so a dump whose symbols were found for only some frames
   * never mixes the two spellings into a bucket of its own.
   */
  names?: boolean;
}

export const NAMES_SUFFIX = '+names';

/** Bucket ids a signer remembers (a few hundred KB at most). */
const MAX_CACHED_IDS = 4096;

export interface Signer {
  algorithm: string;
  /** True when frames of this module are looked through (`KERNELBASE.dll` → kernelbase). */
  skips(module: string): boolean;
  sign(record: Pick<AnalyzeDumpRecord, 'exception' | 'frames' | 'clrException'>): AnalyzeBucketRef;
}

/**
 * A signer for one configuration. With the default skip list the algorithm id is plain
 * `cdbh-sig-2`; with another list it is `cdbh-sig-2+skip.<8 hex of the list>`.
 */
export function createSigner(options: SignatureOptions = {}): Signer {
  const custom = options.skipModules;
  const skip = new Set((custom ?? DEFAULT_SKIP_MODULES).map(normalizeModuleName));
  const names = options.names === true;
  const algorithm =
    (custom === undefined || skipListHash(custom) === skipListHash(DEFAULT_SKIP_MODULES)
      ? SIGNATURE_ALGORITHM
      : `${SIGNATURE_ALGORITHM}+skip.${skipListHash(custom)}`) + (names ? NAMES_SUFFIX : '');
  // A batch has a few signatures and many dumps: each id is hashed once (bounded: forgotten
  // all at once when full, then hashed again as needed).
  const ids = new Map<string, string>();
  return {
    algorithm,
    skips: (module) => skip.has(normalizeModuleName(module)),
    sign(record) {
      const signature = signatureText(record, skip, names);
      let id = ids.get(signature);
      if (id === undefined) {
        id = createHash('sha256').update(`${algorithm}\n${signature}`).digest('hex').slice(0, 16);
        if (ids.size >= MAX_CACHED_IDS) ids.clear();
        ids.set(signature, id);
      }
      return { id, signature, algorithm };
    },
  };
}

function signatureText(
  record: Pick<AnalyzeDumpRecord, 'exception' | 'frames' | 'clrException'>,
  skip: ReadonlySet<string>,
  names = false,
): string {
  const managed = record.clrException?.exceptions[0];
  if (managed !== undefined && managed.type !== '') {
    // A managed exception is grouped by its type and its own stack: the native frames under a
    // CLR throw are the runtime's (KERNELBASE!RaiseException, clr!IL_Throw…) for every crash.
    const managedFrames = managed.stack
      .map((f) => stripOffset(f.function))
      .filter((f) => f !== '')
      .slice(0, SIGNATURE_FRAMES);
    const frames =
      managedFrames.length > 0 ? managedFrames : relevantFrames(record.frames, skip, names);
    return [`clr:${managed.type}`, ...orEmpty(frames)].join(' | ');
  }
  return [
    exceptionPart(record.exception),
    ...orEmpty(relevantFrames(record.frames, skip, names)),
  ].join(' | ');
}

function exceptionPart(exception: AnalyzeDumpRecord['exception']): string {
  if (exception === null) return 'no-exception';
  const code = exception.code.toLowerCase();
  if ((code === ACCESS_VIOLATION || code === IN_PAGE_ERROR) && exception.accessType) {
    return `${code} ${exception.accessType}`;
  }
  return code;
}

/**
 * The first SIGNATURE_FRAMES frames outside the skip list. When every frame is in the skip list
 * (a crash inside ntdll with no caller known), the first frames are kept as they are: a crash in
 * system code is still better told apart by where than lumped into one "system" bucket.
 */
export function relevantFrames(
  frames: readonly AnalyzeFrame[],
  skip: ReadonlySet<string>,
  names = false,
): string[] {
  // cdbh-sig-2: recursion (the same frame again and again) counts once, so the depth of a
  // recursion does not split a bucket. Frames found by a scan stay: the walker gives `scan` only
  // in modules whose image was not found, and those are often the program's own.
  const chosen = pickFrames(frames, skip, frameToken);
  if (
    names &&
    !chosen.every(({ frame }) => frame.function !== undefined && frame.function !== '')
  ) {
    // `+names`: all names or none, so partly found symbols never make a bucket of their own.
    return pickFrames(frames, skip, offsetToken).map((t) => t.token);
  }
  return chosen.map((t) => t.token);
}

/**
 * The first SIGNATURE_FRAMES frames (by `tokenOf`, a frame that repeats the one before left out)
 * outside the skip list, or the first ones when every frame is in it. One pass that stops once
 * enough are found: the walk gives up to 256 frames and only three are wanted.
 */
function pickFrames(
  frames: readonly AnalyzeFrame[],
  skip: ReadonlySet<string>,
  tokenOf: (frame: AnalyzeFrame) => string,
): { frame: AnalyzeFrame; token: string }[] {
  const relevant: { frame: AnalyzeFrame; token: string }[] = [];
  const first: { frame: AnalyzeFrame; token: string }[] = [];
  let previous: string | undefined;
  for (let i = 0; i < frames.length && relevant.length < SIGNATURE_FRAMES; i++) {
    const frame = frames[i]!;
    const token = tokenOf(frame);
    if (i > 0 && token === previous) continue;
    previous = token;
    if (first.length < SIGNATURE_FRAMES) first.push({ frame, token });
    if (frame.module === undefined || !skip.has(normalizeModuleName(frame.module))) {
      relevant.push({ frame, token });
    }
  }
  return relevant.length > 0 ? relevant : first;
}

/** frameToken of the frame without its function name, offset from the module base. */
function offsetToken(frame: AnalyzeFrame): string {
  if (frame.module === undefined) return '?';
  const module = normalizeModuleName(frame.module);
  const offset = frame.moduleOffset ?? frame.offset;
  return offset === undefined ? module : `${module}+${offset}`;
}

/** `av!crash_here`, or `av+0x154a` when there is no symbol, or `?` when nothing is known. */
export function frameToken(frame: AnalyzeFrame): string {
  const module = frame.module === undefined ? undefined : normalizeModuleName(frame.module);
  if (frame.function !== undefined && frame.function !== '') {
    const fn = stripOffset(frame.function);
    return module === undefined ? fn : `${module}!${fn}`;
  }
  if (module !== undefined)
    return frame.offset === undefined ? module : `${module}+${frame.offset}`;
  return '?';
}

/** `crash_here+0x1a` → `crash_here`; `Program.Main()+0x2c` → `Program.Main()`. */
function stripOffset(fn: string): string {
  return fn.replace(/\+0x[0-9a-f]+$/i, '').trim();
}

function orEmpty(frames: string[]): string[] {
  return frames.length > 0 ? frames : ['<no frames>'];
}

/** `module!function+0xoff` text for one frame, for people (reports, CLI). */
export function frameText(frame: AnalyzeFrame): string {
  const module = frame.module ?? '?';
  if (frame.function !== undefined) {
    const at = `${module}!${frame.function}${frame.offset === undefined ? '' : `+${frame.offset}`}`;
    return frame.source === undefined ? at : `${at} [${frame.source}]`;
  }
  if (frame.offset !== undefined) return `${module}+${frame.offset}`;
  return frame.address ?? module;
}
