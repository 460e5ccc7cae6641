// Real minidumps for tests, written by winedbg from the rig's test programs and cached under
// build/test-dumps/ (a dump costs 1–3 s of Wine time; tests ask for the same few again and again).
// Nothing here fabricates dump bytes: every file is what winedbg's `minidump` command wrote.
//
// How each kind is made (winedbg batch mode, `winedbg --file SCRIPT prog.exe args…`):
//  - `set $BreakOnFirstChance=1` makes batch winedbg stop on first-chance exceptions (it passes
//    them otherwise, then stops at the unhandled one, and its `quit` there starts Wine's AeDebug
//    crash reporter: a second winedbg we never asked for);
//  - `cont` leaves the loader breakpoint and runs to the exception;
//  - `minidump NAME.dmp` with a relative name, because winedbg's command parser reads `\` and
//    `:` in an unquoted `Z:\…` path as its own syntax, and cwd is our scratch folder;
//  - `quit` ends the launched debuggee with the debugger.
// `attach-break` is different: `winedbg --minidump FILE PID` on a running idle.exe, which always
// records the break-in exception 0x80000003 (test/minidump/real-dumps.test.ts reads it back).
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readSync,
  closeSync,
  statSync,
} from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { REPO_ROOT, startTarget, targetPath, wineEnv } from './wine.js';

export type DumpKind =
  | 'av-write'
  | 'av-read'
  | 'clr-raise'
  | 'cpp-throw'
  | 'attach-break'
  | 'inline-call'
  | 'inline-top'
  | 'inline-method';

export const DUMP_KINDS: readonly DumpKind[] = [
  'av-write',
  'av-read',
  'clr-raise',
  'cpp-throw',
  'attach-break',
];

interface LaunchRecipe {
  target: string;
  args: string[];
}

const LAUNCH: Record<Exclude<DumpKind, 'attach-break'>, LaunchRecipe> = {
  'av-write': { target: 'av', args: ['0', 'write'] },
  'av-read': { target: 'av', args: ['0', 'read'] },
  // The CLR's own RaiseException shape (5 parameters, HRESULT 0x80131500 first), see raise.c.
  'clr-raise': { target: 'raise', args: ['-n', '1', '-i', '0', '-u', 'e0434352'] },
  // n=0: the first throw is the one nobody catches (0x20474343, mingw's SEH-based C++ EH).
  'cpp-throw': { target: 'thrower', args: ['0'] },
  // The -O2 clang + lld program (test/targets/pdb/inlined.c): a call made from inlined code, and
  // a crash inside inlined code.
  'inline-call': { target: 'inlined', args: [] },
  'inline-top': { target: 'inlined', args: ['top'] },
  'inline-method': { target: 'inlined', args: ['method'] },
};

export const TEST_DUMPS_DIR =
  process.env['CDB_HARNESS_TEST_DUMPS'] ?? join(REPO_ROOT, 'build', 'test-dumps');

const WINEDBG_TIMEOUT_MS = 60_000;

/**
 * The path of a cached real dump of `kind`; writes it first when missing. `copy` tells apart
 * several dumps of the same crash (each a separate run: different pid, time and bytes).
 */
export async function realDump(kind: DumpKind, copy = 1): Promise<string> {
  mkdirSync(TEST_DUMPS_DIR, { recursive: true });
  const final = join(TEST_DUMPS_DIR, `${kind}-${copy}.dmp`);
  if (existsSync(final) && isMinidump(final) && !olderThanItsProgram(final, kind)) return final;
  // Scratch folder per call: parallel mocha workers or two helpers never share a half-written file.
  const scratch = mkdtempSync(join(TEST_DUMPS_DIR, `.tmp-${kind}-`));
  try {
    const written = join(scratch, 'out.dmp');
    if (kind === 'attach-break') await writeAttachDump(written);
    else await writeLaunchDump(LAUNCH[kind], scratch);
    if (!isMinidump(written)) throw new Error(`winedbg wrote no minidump for ${kind}`);
    await rename(written, final);
    return final;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * A cached dump written before its program was last built names an image that is no longer the
 * one on disk (other timestamp and code), so walks that find the image by its recorded path would
 * read the wrong unwind data: write the dump again.
 */
function olderThanItsProgram(dump: string, kind: DumpKind): boolean {
  const program = targetPath(kind === 'attach-break' ? 'idle' : LAUNCH[kind].target);
  return existsSync(program) && statSync(program).mtimeMs > statSync(dump).mtimeMs;
}

/** Several dumps at once, sequentially (Wine on 2 cores does not like a burst of debuggers). */
export async function realDumps(kinds: readonly DumpKind[]): Promise<Record<DumpKind, string>> {
  const out: Partial<Record<DumpKind, string>> = {};
  for (const kind of kinds) out[kind] = await realDump(kind);
  return out as Record<DumpKind, string>;
}

async function writeLaunchDump(recipe: LaunchRecipe, scratch: string): Promise<void> {
  // winedbg saves its $variables in the prefix's registry when it quits, and the prefix is shared
  // with every other winedbg session: put the previous value back before quitting.
  const previous = await breakOnFirstChance();
  const script = join(scratch, 'make-dump.txt');
  await writeFile(
    script,
    `set $BreakOnFirstChance=1\ncont\nminidump out.dmp\nset $BreakOnFirstChance=${previous}\nquit\n`,
  );
  await runWinedbg(['--file', script, targetPath(recipe.target), ...recipe.args], scratch);
}

/** The registry-persisted winedbg setting (1, winedbg's default, when it was never saved). */
function breakOnFirstChance(): Promise<number> {
  return new Promise((resolve) => {
    execFile(
      'wine',
      ['reg', 'query', 'HKCU\\Software\\Wine\\WineDbg', '/v', 'BreakOnFirstChance'],
      { env: wineEnv(), timeout: 30_000 },
      (_error, stdout) => {
        // `    BreakOnFirstChance    REG_DWORD    0x1`
        const match = /BreakOnFirstChance\s+REG_DWORD\s+0x([0-9a-f]+)/i.exec(stdout);
        resolve(match?.[1] === undefined ? 1 : Number.parseInt(match[1], 16));
      },
    );
  });
}

async function writeAttachDump(path: string): Promise<void> {
  const target = await startTarget('idle', ['100']);
  try {
    await runWinedbg(['--minidump', 'out.dmp', String(target.pid)], join(path, '..'));
  } finally {
    await target.kill();
  }
}

function runWinedbg(args: string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(
      'winedbg',
      args,
      { cwd, env: wineEnv(), timeout: WINEDBG_TIMEOUT_MS, killSignal: 'SIGKILL' },
      (error, _stdout, stderr) => {
        // winedbg's exit status after `quit` on a launched debuggee is not meaningful; the dump
        // file is checked instead. A timeout is reported, though.
        if (error && error.killed) {
          reject(new Error(`winedbg ${args.join(' ')} timed out: ${stderr}`));
        } else resolve();
      },
    );
  });
}

/** True when the file exists and starts with the `MDMP` signature. */
export function isMinidump(path: string): boolean {
  if (!existsSync(path)) return false;
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(4);
    return readSync(fd, head, 0, 4, 0) === 4 && head.toString('latin1') === 'MDMP';
  } finally {
    closeSync(fd);
  }
}
