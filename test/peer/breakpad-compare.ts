// Compares the builtin engine with Breakpad's `minidump_stackwalk -m` output on Breakpad's own
// Windows test dumps (the peer corpus, read in place, never copied into the repository). The
// machine-readable format, from Breakpad's src/processor/stackwalk_common.cc
// (https://chromium.googlesource.com/breakpad/breakpad/+/HEAD/src/processor/stackwalk_common.cc):
//   Crash|reason|address|requesting thread
//   Module|name|version|debug file|debug id|base|end|main
//   thread|frame|module|function|source file|line|offset
// A frame's offset is from the source line when it has one, else from the function, else from
// the module (else the absolute address); Breakpad prints the frame's return address (not
// return address − 1), as our frames' `address` holds it.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openMinidump } from '../../src/minidump/index.js';
import { frameJson, type InspectedFrame } from '../../src/report/inspect/inspect-stacks.js';
import { processSupplied } from '../helpers/supplied.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The corpus: `../shared/peer-corpus/breakpad` beside the repository (CI clones main into a folder
 * with shared/ next to it), or where CDBH_PEER_CORPUS points (a worktree elsewhere).
 */
export function peerCorpus(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const root = env['CDBH_PEER_CORPUS'] ?? resolve(REPO, '../shared/peer-corpus');
  const dir = join(root, 'breakpad');
  return existsSync(join(dir, 'dumps')) && existsSync(join(dir, 'expected')) ? dir : undefined;
}

export interface PeerRow {
  thread: number;
  frame: number;
  module: string;
  function: string;
  file: string;
  line: string;
  offset: string;
}

export interface PeerExpected {
  crash: { reason: string; address: string; thread: string };
  modules: { name: string; base: bigint; end: bigint }[];
  rows: PeerRow[];
}

/** Reads one `expected/NAME.{sym,nosym}.txt`. */
export function readExpected(path: string): PeerExpected {
  const out: PeerExpected = {
    crash: { reason: '', address: '', thread: '' },
    modules: [],
    rows: [],
  };
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const f = line.split('|');
    if (f[0] === 'Crash')
      out.crash = { reason: f[1] ?? '', address: f[2] ?? '', thread: f[3] ?? '' };
    else if (f[0] === 'Module') {
      out.modules.push({ name: f[1] ?? '', base: BigInt(f[5] ?? '0'), end: BigInt(f[6] ?? '0') });
    } else if (/^\d+$/.test(f[0] ?? '') && f.length >= 7) {
      out.rows.push({
        thread: Number(f[0]),
        frame: Number(f[1]),
        module: f[2] ?? '',
        function: f[3] ?? '',
        file: f[4] ?? '',
        line: f[5] ?? '',
        offset: f[6] ?? '',
      });
    }
  }
  return out;
}

export interface OursDump {
  crash: { code: number; access?: 'read' | 'write' | 'execute'; address: bigint } | null;
  modules: { name: string; base: bigint; end: bigint }[];
  /** Stacks in Breakpad's thread numbering (the dump-writing thread left out, as Breakpad does). */
  threads: Map<number, { frames: InspectedFrame[]; stop: string }>;
  /** Breakpad's number for the thread the exception names. */
  crashThread: number | undefined;
}

/** Our walk of one corpus dump, with the corpus symbols or none. */
export async function walkOurs(
  dumpPath: string,
  symbolsDir: string | undefined,
  cacheDir: string,
): Promise<OursDump> {
  const dump = await openMinidump(dumpPath);
  try {
    const walked = await processSupplied(
      dump,
      { threads: 'all' },
      {
        recordedPaths: false,
        winePrefix: join(cacheDir, 'no-wine-prefix'),
        ...(symbolsDir === undefined ? {} : { symbolPath: symbolsDir, symbolCacheDir: cacheDir }),
      },
    );
    if (!walked.ok) throw new Error(`${dumpPath}: ${walked.error.message}`);
    const [threads, exception, modules, info] = await Promise.all([
      dump.threads(),
      dump.exception(),
      dump.modules(),
      dump.breakpadInfo(),
    ]);
    const shown = threads.filter((t) => t.id !== info?.dumpThreadId);
    const number = new Map(shown.map((t, i) => [t.id, i]));
    const out: OursDump = {
      crash: null,
      modules: modules.map((m) => ({
        name: m.name,
        base: m.base,
        end: m.base + BigInt(m.size) - 1n,
      })),
      threads: new Map(),
      crashThread: exception === null ? undefined : number.get(exception.threadId),
    };
    for (const thread of walked.threads) {
      const n = number.get(thread.id);
      const stack = thread.callStack;
      if (n !== undefined && stack !== undefined) {
        out.threads.set(n, { frames: stack.frames.map(frameJson), stop: stack.stop });
      }
    }
    // The processor's crash: the access address when it is an access violation (cut to 32 bits
    // on x86 by processDump), else the exception address.
    const crash = walked.exception;
    if (crash !== null) {
      out.crash = {
        code: crash.code,
        address: crash.access?.address ?? crash.address,
        ...(crash.access?.kind === undefined ? {} : { access: crash.access.kind }),
      };
    }
    return out;
  } finally {
    await dump.close();
  }
}

/** Breakpad's reason text for our exception (its names, from winnt.h / ntstatus.h). */
export function breakpadReason(crash: OursDump['crash']): string {
  if (crash === null) return 'No crash';
  if (crash.code === 0xc0000005) {
    const kind = { read: 'READ', write: 'WRITE', execute: 'EXEC' }[crash.access ?? 'read'];
    return `EXCEPTION_ACCESS_VIOLATION_${kind}`;
  }
  const named: Record<number, string> = {
    0xc00000fd: 'EXCEPTION_STACK_OVERFLOW',
    0xc0000409: 'FAST_FAIL_FATAL_APP_EXIT',
  };
  return named[crash.code] ?? `0x${crash.code.toString(16).padStart(8, '0')}`;
}

/** No code lives in an image's first page (its PE headers): a "return address" there is data. */
export const HEADER_PAGE = 0x1000n;

/** True when Breakpad's row names a module offset inside the PE header page. */
export function inHeaderPage(row: PeerRow): boolean {
  return row.module !== '' && row.function === '' && BigInt(row.offset) < HEADER_PAGE;
}

/** One Breakpad frame against ours: null when they are the same frame, else what differs. */
export function frameDiffers(row: PeerRow, ours: InspectedFrame | undefined): string | null {
  if (ours === undefined) return 'missing (our walk ended earlier)';
  const module = ours.module ?? '';
  if (module.toLowerCase() !== row.module.toLowerCase()) {
    return `${ours.label} where Breakpad has ${row.module || '(no module)'}+${row.offset}`;
  }
  if (row.module === '') {
    return BigInt(row.offset) === BigInt(ours.address)
      ? null
      : `${ours.address} where Breakpad has ${row.offset}`;
  }
  if (row.function === '') {
    return BigInt(ours.moduleOffset ?? '-1') === BigInt(row.offset)
      ? null
      : `${ours.label} where Breakpad has ${row.module}+${row.offset}`;
  }
  if (ours.function !== row.function) {
    return `${ours.label} where Breakpad has ${row.module}!${row.function}`;
  }
  if (row.line !== '') {
    return String(ours.line ?? '') === row.line
      ? null
      : `line ${ours.line ?? '(none)'} where Breakpad has ${row.line}`;
  }
  return BigInt(ours.functionOffset ?? '-1') === BigInt(row.offset)
    ? null
    : `${ours.label} where Breakpad has ${row.module}!${row.function}+${row.offset}`;
}

export interface ThreadComparison {
  thread: number;
  /** Breakpad's frames on this thread. */
  total: number;
  matched: number;
  /** Breakpad rows in a header page, which our scan never takes. */
  headerPage: number;
  /** Breakpad frame number → what differs. */
  differing: Map<number, string>;
  /** Frames we found past Breakpad's last. */
  extra: number;
  stop: string;
}

/**
 * Lines up one thread's rows with our frames: Breakpad's header-page words are dropped first
 * (each later Breakpad frame is then compared with the next of ours), then frame by frame.
 */
export function compareThread(
  thread: number,
  rows: PeerRow[],
  ours: { frames: InspectedFrame[]; stop: string } | undefined,
): ThreadComparison {
  const frames = ours?.frames ?? [];
  const out: ThreadComparison = {
    thread,
    total: rows.length,
    matched: 0,
    headerPage: 0,
    differing: new Map(),
    extra: 0,
    stop: ours?.stop ?? 'not walked',
  };
  let at = 0;
  for (const row of rows) {
    if (inHeaderPage(row)) {
      out.headerPage++;
      continue;
    }
    const differs = frameDiffers(row, frames[at]);
    if (differs === null) out.matched++;
    else out.differing.set(row.frame, differs);
    at++;
  }
  out.extra = Math.max(0, frames.length - at);
  return out;
}
