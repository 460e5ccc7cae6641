// Crash signatures and bucket ids, algorithm `cdbh-sig-3` (docs/bucketing.md). A signature is
// readable text, `<exception> | <frame> | <frame> | <frame>`, and the bucket id is a hash of the
// algorithm id plus that text. The algorithm id is stored with every bucket so that a later
// change (other lists, more frames) makes new ids instead of silently regrouping old ones
// (Sentry's versioned grouping); `--rebucket` recomputes them from stored records. One algorithm
// whatever symbols the run had: frames are named when every signature frame has a name and are
// module offsets otherwise, so the text says which rendering it is and the same text always has
// the same id (cdbh-sig-2 added `+names` to the id whenever a symbol path was given).
import { createHash } from 'node:crypto';
import type { AnalyzeBucketRef, AnalyzeDumpRecord, AnalyzeFrame } from './analyze-record.js';
import {
  applyListEdits,
  DEFAULT_SIGNATURE_LISTS,
  listsHash,
  sameAsDefaults,
  type ListEdits,
  type SignatureLists,
} from './signature-lists.js';
import { normalizeModuleName } from './skip-modules.js';

export const SIGNATURE_ALGORITHM = 'cdbh-sig-3';

/** How many relevant frames a signature keeps (Socorro keeps a prefix; BugId hashes 2–3). */
export const SIGNATURE_FRAMES = 3;

/** The mark of a frame found by scanning the stack (`~av+0x16bc`): a guess, said as one. */
export const SCANNED_MARK = '~';

const ACCESS_VIOLATION = '0xc0000005';
const IN_PAGE_ERROR = '0xc0000006';

/**
 * Debugger events, not crashes: cdb's noninvasive attach and DebugDiag's hang dumps store
 * `Wake debugger - code 80000007` (STATUS_WAKE_SYSTEM_DEBUGGER) as the dump's exception
 * (test/fixtures/transcripts/dbgeng/dump-attach-noninvasive-ma.txt). Signed as `no-exception`,
 * with the dumps taken on demand.
 */
const DEBUGGER_EVENTS = new Set(['0x80000007']);

export interface SignatureOptions {
  /** Skip modules added to (or, `!name`, taken from) the defaults: `--skip-modules FILE`. */
  skipModules?: readonly string[];
  /** Edits of the four lists (`--signature-lists DIR`, signature-lists.ts). */
  lists?: readonly ListEdits[];
}

/** Bucket ids a signer remembers (a few hundred KB at most). */
const MAX_CACHED_IDS = 4096;

export type SignedRecord = Pick<AnalyzeDumpRecord, 'exception' | 'frames' | 'clrException'>;

export interface Signer {
  algorithm: string;
  /** The lists in force. */
  lists: SignatureLists;
  /** True when frames of this module are looked through (`KERNELBASE.dll` → kernelbase). */
  skips(module: string): boolean;
  sign(record: SignedRecord): AnalyzeBucketRef;
}

/** The lists a signer with these options uses. */
export function listsOf(options: SignatureOptions = {}): SignatureLists {
  const edits: ListEdits[] = [...(options.lists ?? [])];
  if (options.skipModules !== undefined) edits.push({ skipModules: options.skipModules });
  return edits.length === 0 ? DEFAULT_SIGNATURE_LISTS : applyListEdits(edits);
}

/**
 * A signer for one configuration. With the default lists the algorithm id is plain
 * `cdbh-sig-3`; with others it is `cdbh-sig-3+lists.<8 hex of the lists>`.
 */
export function createSigner(options: SignatureOptions = {}): Signer {
  const lists = listsOf(options);
  const algorithm = sameAsDefaults(lists)
    ? SIGNATURE_ALGORITHM
    : `${SIGNATURE_ALGORITHM}+lists.${listsHash(lists)}`;
  const rules = compileRules(lists);
  // A batch has a few signatures and many dumps: each id is hashed once (bounded: forgotten
  // all at once when full, then hashed again as needed).
  const ids = new Map<string, string>();
  return {
    algorithm,
    lists,
    skips: (module) => rules.skip.has(normalizeModuleName(module)),
    sign(record) {
      const signature = signatureText(record, rules);
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

/** A list's patterns: those for the function name, and those (with a `!`) for module!function. */
interface Patterns {
  fn: RegExp | null;
  qualified: RegExp | null;
}

interface Rules {
  skip: ReadonlySet<string>;
  irrelevant: Patterns;
  prefix: Patterns;
  sentinels: ReadonlySet<string>;
}

function compileRules(lists: SignatureLists): Rules {
  // One alternation per list, matching the whole text (signature-lists.ts says why).
  const alternation = (patterns: readonly string[]) =>
    patterns.length === 0 ? null : new RegExp(`^(?:${patterns.map((p) => `(?:${p})`).join('|')})$`);
  const union = (patterns: readonly string[]): Patterns => ({
    fn: alternation(patterns.filter((p) => !p.includes('!'))),
    qualified: alternation(patterns.filter((p) => p.includes('!'))),
  });
  return {
    skip: new Set(lists.skipModules.map(normalizeModuleName)),
    irrelevant: union(lists.irrelevant),
    prefix: union(lists.prefix),
    sentinels: new Set(lists.sentinels),
  };
}

function signatureText(record: SignedRecord, rules: Rules): string {
  const managed = record.clrException?.exceptions[0];
  if (managed !== undefined && managed.type !== '') {
    // A managed exception is grouped by its type and its own stack: the native frames under a
    // CLR throw are the runtime's (KERNELBASE!RaiseException, clr!IL_Throw…) for every crash.
    // The irrelevant list applies to them too (.NET 9+'s own dispatcher tops every stack taken
    // at a throw).
    const managedFrames = managed.stack
      .map((f) => stripOffset(f.function))
      .filter((f) => f !== '' && !matches(rules.irrelevant, { function: f }))
      .slice(0, SIGNATURE_FRAMES);
    const frames = managedFrames.length > 0 ? managedFrames : relevantFrames(record.frames, rules);
    return [`clr:${managed.type}`, ...orEmpty(frames)].join(' | ');
  }
  return [exceptionPart(record.exception), ...orEmpty(relevantFrames(record.frames, rules))].join(
    ' | ',
  );
}

function exceptionPart(exception: AnalyzeDumpRecord['exception']): string {
  if (exception === null) return 'no-exception';
  const code = exception.code.toLowerCase();
  if (DEBUGGER_EVENTS.has(code)) return 'no-exception';
  if ((code === ACCESS_VIOLATION || code === IN_PAGE_ERROR) && exception.accessType) {
    return `${code} ${exception.accessType}`;
  }
  return code;
}

/** A frame found by scanning the stack for return addresses, not by unwind data. */
function scanned(frame: AnalyzeFrame): boolean {
  return frame.trust === 'scan' || frame.trust === 'scan-call';
}

/** Nothing known: no module, no function (cdb's `?`, a walk's frame outside every module). */
function unknown(frame: AnalyzeFrame): boolean {
  return frame.module === undefined && (frame.function === undefined || frame.function === '');
}

function named(frame: AnalyzeFrame): boolean {
  return frame.function !== undefined && frame.function !== '';
}

/**
 * The signature's frames (cdbh-sig-3), from the top: from the first sentinel when one is on the
 * stack; unknown frames (`?`) never; frames of skipped modules or irrelevant functions looked
 * through; prefix frames kept without counting; SIGNATURE_FRAMES counted frames at most; the
 * same token twice in a row once (a recursion's depth does not split a bucket). Frames found by
 * scanning take part only when the frames found otherwise give nothing, and are then marked
 * `~`. When everything is looked through, the first frames as they are (a crash inside ntdll
 * with no caller is still told apart by where it happened). Named (`module!function`) when every
 * chosen frame has a function, else module offsets (`module+0xoff`) for all of them, so partly
 * found symbols never make a bucket of their own.
 */
export function relevantFrames(frames: readonly AnalyzeFrame[], rules: Rules): string[] {
  const start = sentinelIndex(frames, rules.sentinels);
  const stack = start <= 0 ? frames : frames.slice(start);
  for (const withScanned of [false, true]) {
    const picked = pickFrames(stack, rules, withScanned, nameToken);
    if (picked === undefined) continue;
    if (picked.every(({ frame }) => named(frame))) return picked.map((t) => t.token);
    return (pickFrames(stack, rules, withScanned, offsetToken) ?? []).map((t) => t.token);
  }
  // Everything was looked through: the first frames as they are, scanned ones again only when
  // there are no others.
  const withScanned = !stack.some((f) => !unknown(f) && !scanned(f));
  const first = firstFrames(stack, withScanned, nameToken);
  if (first.every(({ frame }) => named(frame))) return first.map((t) => t.token);
  return firstFrames(stack, withScanned, offsetToken).map((t) => t.token);
}

function sentinelIndex(frames: readonly AnalyzeFrame[], sentinels: ReadonlySet<string>): number {
  if (sentinels.size === 0) return -1;
  return frames.findIndex((f) => named(f) && sentinels.has(stripOffset(f.function ?? '')));
}

interface Picked {
  frame: AnalyzeFrame;
  token: string;
}

/**
 * The kept frames of one pass (undefined when none). One pass that stops once enough are
 * counted: the walk gives up to 256 frames and only three are wanted.
 */
function pickFrames(
  frames: readonly AnalyzeFrame[],
  rules: Rules,
  withScanned: boolean,
  tokenOf: (frame: AnalyzeFrame) => string,
): Picked[] | undefined {
  const kept: Picked[] = [];
  let counted = 0;
  let previous: string | undefined;
  for (let i = 0; i < frames.length && counted < SIGNATURE_FRAMES; i++) {
    const frame = frames[i]!;
    if (unknown(frame) || (!withScanned && scanned(frame))) continue;
    const token = tokenOf(frame);
    if (token === previous) continue;
    previous = token;
    if (frame.module !== undefined && rules.skip.has(normalizeModuleName(frame.module))) continue;
    if (matches(rules.irrelevant, frame)) continue;
    kept.push({ frame, token });
    if (!matches(rules.prefix, frame)) counted++;
  }
  return kept.length > 0 ? kept : undefined;
}

/** A list's patterns against a named frame's function, and its `module!function`. */
function matches(patterns: Patterns, frame: AnalyzeFrame): boolean {
  if (!named(frame)) return false;
  const fn = stripOffset(frame.function ?? '');
  if (patterns.fn?.test(fn) === true) return true;
  if (patterns.qualified === null || frame.module === undefined) return false;
  return patterns.qualified.test(`${normalizeModuleName(frame.module)}!${fn}`);
}

/** The first SIGNATURE_FRAMES known frames as they are (every frame was looked through). */
function firstFrames(
  frames: readonly AnalyzeFrame[],
  withScanned: boolean,
  tokenOf: (frame: AnalyzeFrame) => string,
): Picked[] {
  const first: Picked[] = [];
  let previous: string | undefined;
  for (const frame of frames) {
    if (first.length >= SIGNATURE_FRAMES) break;
    if (unknown(frame) || (!withScanned && scanned(frame))) continue;
    const token = tokenOf(frame);
    if (token === previous) continue;
    previous = token;
    first.push({ frame, token });
  }
  return first;
}

/** `av!crash_here` (`~av!crash_here` when scanned), else as offsetToken. */
function nameToken(frame: AnalyzeFrame): string {
  if (!named(frame)) return offsetToken(frame);
  const fn = stripOffset(frame.function ?? '');
  const module = frame.module === undefined ? undefined : normalizeModuleName(frame.module);
  return mark(frame, module === undefined ? fn : `${module}!${fn}`);
}

/**
 * `av+0x154a`: the offset from the module base (stable across ASLR). A debugger's named frame
 * has no module offset (its offset is from the function): it stays `module!function`.
 */
function offsetToken(frame: AnalyzeFrame): string {
  if (frame.module === undefined) return mark(frame, stripOffset(frame.function ?? '?'));
  const module = normalizeModuleName(frame.module);
  const offset = frame.moduleOffset ?? (named(frame) ? undefined : frame.offset);
  if (offset !== undefined) return mark(frame, `${module}+${offset}`);
  return mark(frame, named(frame) ? `${module}!${stripOffset(frame.function ?? '')}` : module);
}

function mark(frame: AnalyzeFrame, token: string): string {
  return scanned(frame) ? `${SCANNED_MARK}${token}` : token;
}

/** `av!crash_here`, or `av+0x154a` when there is no symbol, or `?` when nothing is known. */
export function frameToken(frame: AnalyzeFrame): string {
  const module = frame.module === undefined ? undefined : normalizeModuleName(frame.module);
  if (named(frame)) {
    const fn = stripOffset(frame.function ?? '');
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
