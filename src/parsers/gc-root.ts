// SOS `!gcroot ADDR`: every root that keeps an object alive, each with the chain of references from
// the root down to the object. Two published layouts:
// - Windows SOS (.NET 5, WinDbg): `Thread 1a68:` / `HandleTable:` headings, upper-case 16-digit
//   addresses after `->  `, generic names in the `List`1[[T, asm]]` form, and the footer
//   `Found 2 unique roots (run '!gcroot -all' to see all roots).`
//   (test/fixtures/transcripts/misc/gcroot-list-leakobject-net5-x64-windbg.txt);
// - dotnet-dump 10 (test/fixtures/transcripts/dotnet-dump/gcroot-*-linux-net10.txt): lower-case
//   addresses, C#-style generic names, `(static variable: …)` notes, a `Caching GC roots` preamble
//   and `Found N unique roots.`
// A root's first line is the handle (`00007f1b834313e8 (strong handle)`) or, under a thread, the
// frame (`SP IP Method [file @ line]`) then the register or stack slot (`rbp-108: 00007ffe…`).
import { defineParser, SOS_PREFIX } from './descriptor.js';
import { isBareCommand, isPromptLine } from './command-echo.js';
import { normalizeHex } from './text.js';
import { createWarningList, unplaced } from './warning-list.js';
import type { Hex, RecordBase } from './records.js';

/** One object on a root's chain. */
export interface GcRootLink {
  address: Hex;
  typeName: string;
  /** What SOS adds in parentheses after the type (`static variable: …`). */
  note?: string;
}

export interface GcRootPath {
  /** `handle` (HandleTable), `stack` (a thread's frame or register), `finalizer`, `other`. */
  rootKind: 'handle' | 'stack' | 'finalizer' | 'other';
  /** The root as printed: `strong handle`, `pinned handle`, `rbp-108`, `r8`… */
  root: string;
  /** Handle address, or the stack slot's address when the root is on a stack. */
  rootAddress?: Hex;
  /** Thread id as printed in the `Thread X:` heading (hex), for stack roots. */
  thread?: string;
  /** The frame holding the root: `CdbHarness.Targets.Sessions.Run(Options)`. */
  frame?: string;
  /** From the root down to the object asked about. */
  chain: GcRootLink[];
}

export interface GcRootRecord extends RecordBase {
  /** The object asked about, when the command line is known. */
  target?: Hex;
  roots: GcRootPath[];
  /** `Found N unique roots`. */
  uniqueRoots?: number;
  /** SOS said it could not work on the address (`Could not parse target object address`…). */
  error?: string;
}

// 0:000> !gcroot 00000236cc3e92b0   /   gcroot 7f0f2980b9b8
const COMMAND_RE = /^!?(?:sos\.)?gcroot\b/i;
// gcroot -all 7f0f2980b9b8
const TARGET_RE = /gcroot\b(?:\s+-\S+)*\s+(?:0x)?([0-9a-f`]+)\s*$/i;
// HandleTable:
const HANDLE_TABLE_RE = /^\s*HandleTable:\s*$/i;
// Thread 1a68:
const THREAD_RE = /^\s*Thread\s+([0-9a-f]+):\s*$/i;
// Finalizer Queue:
const FINALIZER_RE = /^\s*Finalizer Queue:\s*$/i;
//     00007f1b834313e8 (strong handle)
const HANDLE_RE = /^\s*([0-9a-f`]{8,17})\s+\(([^)]+)\)\s*$/i;
//     0000004B34BDE3E0 00007FFB64715F7D ManagedMemoryLeak.Program.Main(System.String[]) [C:\…\Program.cs @ 34]
//     7ffe7995d150 7f1b046a390e CdbHarness.Targets.Sessions.Run(Options) [/…/Sessions.cs @ 60]
const FRAME_RE = /^\s*([0-9a-f`]{8,17})\s+([0-9a-f`]{8,17})\s+(\S.*?)(?:\s+\[[^\]]*\])?\s*$/i;
//         rbp-18: 0000004b34bde408     /   r8:     (register roots print no slot address)
const SLOT_RE = /^\s*([a-z0-9+-]+):\s*([0-9a-f`]{8,17})?\s*$/i;
//             ->  00000236CBC4B540 System.Collections.Generic.List`1[[ManagedMemoryLeak.LeakObject, ManagedMemoryLeak]]
//           -> 7f0f2980b900     System.Collections.Generic.Dictionary<System.Guid, CdbHarness.Targets.SessionState> (static variable: X.y)
const LINK_RE = /^\s*->\s+([0-9a-f`]{8,17})\s+(\S.*?)\s*$/i;
// (static variable: System.Globalization.NumberFormatInfo.<InvariantInfo>k__BackingField)
const NOTE_RE = /^(.*?)\s+\(([a-z][a-z ]*:[^()]*)\)$/i;
// Found 2 unique roots (run '!gcroot -all' to see all roots).   /   Found 0 unique roots.
const FOUND_RE = /^\s*Found\s+(\d+)\s+unique roots?\b/i;
// Caching GC roots, this may take a while.   /   Subsequent runs of this command will be faster.
const PREAMBLE_RE = /^\s*(?:Caching GC roots|Subsequent runs of this command)/i;
// Unhandled exception: System.ArgumentException: Could not parse target object address: 0
// Warning: 10 is not a valid objectCaching GC roots, this may take a while.   (no newline between
// the warning and the preamble: dotnet-dump 10, gcroot-no-root-linux-net10.txt)
const ERROR_RE =
  /^\s*(?:Unhandled exception: \S+: |Warning: )?(Could not parse target object address.*|\S+ is not a valid object)/i;
//    at Microsoft.Diagnostics.DebugServices.Implementation.Utilities.Invoke(…) in /_/src/…:line 422
const STACK_LINE_RE = /^\s+at\s+\S/;

export function parseGcRoot(text: string, command: string | null = null): GcRootRecord {
  const warnings = createWarningList();
  const record: GcRootRecord = { roots: [], warnings: [] };
  const target = command === null ? null : TARGET_RE.exec(command.trim());
  if (target) {
    const hex = normalizeHex(target[1] ?? '');
    if (hex !== null) record.target = hex;
  }
  let section: GcRootPath['rootKind'] | null = null;
  let thread: string | undefined;
  let frame: string | undefined;
  let current: GcRootPath | null = null;

  const open = (path: GcRootPath): void => {
    current = path;
    record.roots.push(path);
  };

  for (const rawLine of text.split('\n')) {
    const line = rawLine.replace(/\r/g, '');
    if (line.trim().length === 0) continue;
    if (isPromptLine(line) || isBareCommand(line, COMMAND_RE)) {
      const echoed = TARGET_RE.exec(line);
      const hex = echoed ? normalizeHex(echoed[1] ?? '') : null;
      if (hex !== null && record.target === undefined) record.target = hex;
      continue;
    }
    let m: RegExpExecArray | null;
    if ((m = LINK_RE.exec(line))) {
      const address = normalizeHex(m[1] ?? '');
      if (current !== null && address !== null) {
        (current as GcRootPath).chain.push(link(address, m[2] ?? ''));
        continue;
      }
    } else if (HANDLE_TABLE_RE.test(line)) {
      section = 'handle';
      current = null;
      continue;
    } else if ((m = THREAD_RE.exec(line))) {
      section = 'stack';
      thread = m[1];
      frame = undefined;
      current = null;
      continue;
    } else if (FINALIZER_RE.test(line)) {
      section = 'finalizer';
      current = null;
      continue;
    } else if (section !== null && section !== 'stack' && (m = HANDLE_RE.exec(line))) {
      const rootAddress = normalizeHex(m[1] ?? '');
      open({
        rootKind: section,
        root: (m[2] ?? '').trim(),
        ...(rootAddress === null ? {} : { rootAddress }),
        chain: [],
      });
      continue;
    } else if (section === 'stack' && (m = SLOT_RE.exec(line))) {
      const rootAddress = m[2] === undefined ? null : normalizeHex(m[2]);
      open({
        rootKind: 'stack',
        root: m[1] ?? '',
        ...(rootAddress === null ? {} : { rootAddress }),
        ...(thread === undefined ? {} : { thread }),
        ...(frame === undefined ? {} : { frame }),
        chain: [],
      });
      continue;
    } else if (section === 'stack' && (m = FRAME_RE.exec(line))) {
      frame = (m[3] ?? '').trim();
      current = null;
      continue;
    } else if ((m = FOUND_RE.exec(line))) {
      record.uniqueRoots = Number(m[1]);
      continue;
    } else if ((m = ERROR_RE.exec(line))) {
      record.error = (m[1] ?? '').trim();
      continue;
    } else if (PREAMBLE_RE.test(line) || (record.error !== undefined && STACK_LINE_RE.test(line))) {
      continue;
    }
    warnings.add(unplaced(line));
  }
  record.warnings = warnings.list();
  return record;
}

function link(address: Hex, rest: string): GcRootLink {
  const text = rest.trim();
  const note = NOTE_RE.exec(text);
  if (note) return { address, typeName: (note[1] ?? '').trim(), note: (note[2] ?? '').trim() };
  return { address, typeName: text };
}

export const gcRootDescriptor = defineParser({
  kind: 'gcRoot',
  commands: [
    // !gcroot 00000236cc3e92b0   /   gcroot -all 7f0f2980b9b8
    new RegExp(`^${SOS_PREFIX}gcroot\\b`, 'i'),
  ],
  parse: (text, command) => parseGcRoot(text, command),
  summary: (record) => [
    `${record.roots.length} root(s)${record.target === undefined ? '' : ` of ${record.target}`}`,
    ...record.roots
      .slice(0, 5)
      .map((r) => `${r.root}: ${r.chain.map((l) => l.typeName).join(' -> ')}`),
  ],
});
