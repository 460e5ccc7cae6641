// The lists that steer a crash signature, as Socorro has them (its siglists README,
// https://github.com/mozilla-services/socorro/blob/main/socorro/signature/siglists/README.rst):
// - skip modules: modules whose frames are looked through (system and runtime code on every
//   crash stack; skip-modules.ts);
// - irrelevant: frames whose function matches one of these patterns are looked through too
//   (`irrelevant_signature_re.txt`: the raising and dispatching machinery);
// - prefix: a frame that matches is kept but does not count toward the frame limit, so the
//   signature goes on to the frame that called it (`prefix_signature_re.txt`: memcpy, abort…);
// - sentinels: function names that, when on the stack, become its top; frames above are
//   ignored (`signature_sentinels.txt`: _purecall).
// Patterns are JavaScript regular expressions that must match a frame's whole function name
// (`RaiseException`; `.*` to extend it), or its whole `module!function` when the pattern holds a
// `!` (`kernelbase!.*`); Socorro `.match()`es from the start only, which here would let `raise`
// take in the module raise.exe's every frame. Sentinels are exact function names. User lists are added to the defaults; a line `!ENTRY`
// takes ENTRY out of them. Any list that differs from the defaults changes the algorithm id.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../../errors.js';
import { DEFAULT_SKIP_MODULES, normalizeModuleName } from './skip-modules.js';

export interface SignatureLists {
  /** Module names, normalized (`ntdll`, `kernelbase`). */
  skipModules: readonly string[];
  /** Patterns of functions looked through. */
  irrelevant: readonly string[];
  /** Patterns of functions kept without counting toward the frame limit. */
  prefix: readonly string[];
  /** Function names that become the top of the stack. */
  sentinels: readonly string[];
}

export type ListName = keyof SignatureLists;

/** Socorro's file names, and ours for the skip list, as `--signature-lists DIR` reads them. */
export const LIST_FILES: Record<ListName, string> = {
  skipModules: 'skip_modules.txt',
  irrelevant: 'irrelevant_signature_re.txt',
  prefix: 'prefix_signature_re.txt',
  sentinels: 'signature_sentinels.txt',
};

export const DEFAULT_SIGNATURE_LISTS: SignatureLists = {
  skipModules: DEFAULT_SKIP_MODULES,
  // The machinery that raises and dispatches an exception, wherever it is linked: mingw programs
  // carry libgcc's unwinder and libstdc++'s throw statically (`thrower!_Unwind_RaiseException`),
  // so the module list alone cannot look through them.
  irrelevant: [
    'RaiseException',
    'RtlRaiseException',
    'RtlDispatchException',
    'RtlpExecuteHandlerForException',
    'KiUserExceptionDispatcher',
    '_CxxThrowException',
    '__cxa_throw',
    '__cxa_rethrow',
    '_Unwind_RaiseException',
    '_Unwind_Resume',
    'IL_Throw',
    'IL_Rethrow',
    'RaiseTheExceptionInternalOnly',
    'DbgBreakPoint',
    'DbgUiRemoteBreakin',
    // .NET 9+ dispatches managed exceptions in managed code: its dispatcher tops every managed
    // stack taken at a throw (real CoreCLR 10 under Wine, test/fixtures/transcripts/dbgeng/
    // watch-attach-clr-exceptions-sos.txt):
    //   System.Runtime.EH.DispatchEx(System.Runtime.StackFrameIterator ByRef, ExInfo ByRef)
    'System\\.Runtime\\.EH\\..*',
  ],
  // Generic functions that fault on behalf of their caller: the caller tells crashes apart.
  prefix: [
    'abort',
    'raise',
    'terminate',
    '_invalid_parameter',
    '_invalid_parameter_noinfo',
    '_invoke_watson',
    'memcpy',
    'memmove',
    'memset',
    'memcmp',
    'strlen',
    'strcmp',
    'strcpy',
    'strncpy',
    'wcslen',
    'wcscmp',
    'wcscpy',
    'malloc',
    'free',
    'realloc',
    'operator new',
    'operator delete',
  ],
  sentinels: ['_purecall'],
};

/** Additions and removals for each list, as read from files. */
export type ListEdits = Partial<Record<ListName, readonly string[]>>;

/**
 * One list file: one entry per line; `#` and `$$` start comments; `!ENTRY` removes ENTRY.
 * Sample line: `RtlpCallVectoredHandlers   # vectored handlers run before the frame's own`
 */
export function parseListFile(text: string): string[] {
  const entries: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/(\s#|^#|\$\$).*$/, '').trim();
    if (line !== '') entries.push(line);
  }
  return entries;
}

/** The lists in `dir` by Socorro's file names (a missing file adds nothing; none at all: error). */
export function readListDir(dir: string): ListEdits {
  const edits: Partial<Record<ListName, string[]>> = {};
  for (const [name, file] of Object.entries(LIST_FILES) as [ListName, string][]) {
    const path = join(dir, file);
    if (existsSync(path)) edits[name] = parseListFile(readFileSync(path, 'utf8'));
  }
  if (Object.keys(edits).length === 0) {
    throw new UsageError(
      `--signature-lists ${dir}: none of ${Object.values(LIST_FILES).join(', ')} in it`,
    );
  }
  return edits;
}

/** Merges edits into `base` (the defaults): entries added, `!entry` removed, order kept. */
export function applyListEdits(
  edits: readonly ListEdits[],
  base: SignatureLists = DEFAULT_SIGNATURE_LISTS,
): SignatureLists {
  const out: Record<ListName, string[]> = {
    skipModules: [...base.skipModules],
    irrelevant: [...base.irrelevant],
    prefix: [...base.prefix],
    sentinels: [...base.sentinels],
  };
  for (const edit of edits) {
    for (const [name, entries] of Object.entries(edit) as [ListName, readonly string[]][]) {
      const normal = (entry: string) =>
        name === 'skipModules' ? normalizeModuleName(entry) : entry;
      for (const entry of entries) {
        if (entry.startsWith('!')) {
          const gone = normal(entry.slice(1).trim());
          out[name] = out[name].filter((e) => e !== gone);
        } else if (!out[name].includes(normal(entry))) {
          out[name].push(normal(entry));
        }
      }
    }
  }
  for (const name of ['irrelevant', 'prefix'] as const) {
    for (const pattern of out[name]) checkPattern(pattern, LIST_FILES[name]);
  }
  return out;
}

function checkPattern(pattern: string, file: string): void {
  try {
    new RegExp(pattern);
  } catch (error) {
    throw new UsageError(
      `${file}: "${pattern}" is not a regular expression: ${(error as Error).message}`,
    );
  }
}

/** 8 hex digits naming the lists (each sorted), so other lists give another algorithm id. */
export function listsHash(lists: SignatureLists): string {
  const text = (Object.keys(LIST_FILES) as ListName[])
    .map((name) => `${name}:${[...new Set(lists[name])].sort().join('\n')}`)
    .join('\n\n');
  return createHash('sha256').update(text).digest('hex').slice(0, 8);
}

export function sameAsDefaults(lists: SignatureLists): boolean {
  return listsHash(lists) === listsHash(DEFAULT_SIGNATURE_LISTS);
}

/** The lists as text files would hold them, one section per file (`signature-lists` prints it). */
export function listsText(lists: SignatureLists): string {
  const sections = (Object.keys(LIST_FILES) as ListName[]).map(
    (name) => `# ${LIST_FILES[name]}\n${lists[name].join('\n')}\n`,
  );
  return sections.join('\n');
}
