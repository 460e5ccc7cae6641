// Turns the PATH arguments of `analyze` into a sorted list of dump files: files as given,
// folders searched recursively for dump extensions (any case, links to files followed), anything
// with glob characters expanded by tinyglobby. Sorted and de-duplicated so runs, shards and resumes see the same order.
import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { bytePathOf, joinBytePath, type BytePath } from '../../common/byte-path.js';
import { pathFromArgv } from '../argv-path.js';
import { IoError, UsageError } from '../../errors.js';
import { fileKind } from '../../minidump/file-reader.js';
import { dict } from '../../common/dict.js';
import { systemReason } from '../../system-errors.js';

/**
 * What a folder scan takes: `.dmp`, plus the names Windows Error Reporting gives its dumps
 * (`.mdmp` minidumps and `.hdmp` heap dumps, https://learn.microsoft.com/windows/win32/wer/collecting-user-mode-dumps
 * and the WER report folders). More with `--ext`.
 */
export const DUMP_EXTENSIONS: readonly string[] = ['.dmp', '.mdmp', '.hdmp'];

/** `--ext` values (`dump`, `.core`, `*.bin`) → `.dump`, `.core`, `.bin`; refuses paths and globs. */
export function normalizeExtension(text: string): string {
  const bare = text.trim().replace(/^\*?\.?/, '');
  // Sample: "mdmp" or "core.1"
  if (!/^[A-Za-z0-9_][A-Za-z0-9_.-]*$/.test(bare)) {
    throw new UsageError(`--ext wants a file extension such as mdmp or .core, got "${text}"`);
  }
  return `.${bare.toLowerCase()}`;
}

export interface ExpandedInputs {
  /**
   * Text paths, and the bytes of names that are not valid UTF-8 (common/byte-path.ts): every
   * fs call takes either, and `pathText()` is what records and messages show.
   */
  files: BytePath[];
  /** Arguments that matched nothing (a typo is reported, not silently ignored). */
  unmatched: string[];
  /**
   * What folder scans passed over, by reason (`FIFO`, `broken link`, `unreadable folder`…):
   * entries with a dump extension that are not regular files, and folders that cannot be read.
   */
  skipped: Record<string, number>;
  /** Arguments naming nothing on disk, and no glob either (a typo, a wrong folder). */
  missing: string[];
  /** Arguments naming a folder that cannot be listed, with the reason (`EACCES`). */
  unreadable: { input: string; code: string }[];
}

export async function expandInputs(
  paths: readonly string[],
  cwd = process.cwd(),
  extraExtensions: readonly string[] = [],
): Promise<ExpandedInputs> {
  const extensions = [...new Set([...DUMP_EXTENSIONS, ...extraExtensions.map(normalizeExtension)])];
  // Keyed by the path's exact bytes (two bad names can read the same as text), kept for the sort.
  const files = new Map<string, { bytes: Buffer; path: BytePath }>();
  const add = (path: BytePath) => {
    const bytes = Buffer.from(path);
    files.set(bytes.toString('latin1'), { bytes, path });
  };
  const unmatched: string[] = [];
  const missing: string[] = [];
  const unreadable: { input: string; code: string }[] = [];
  const skipped: Record<string, number> = dict();
  for (const arg of paths) {
    const before = files.size;
    // A name that is not UTF-8 typed on the command line arrives with U+FFFD: found again in
    // its folder when it can be (argv-path.ts).
    const { path: absolute } = await pathFromArgv(resolve(cwd, arg));
    const info = await stat(absolute).catch((error: unknown) => errorCode(error));
    if (typeof info !== 'string' && info.isDirectory()) {
      const rootError = await scanFolder(absolute, extensions, add, skipped);
      if (rootError !== undefined) unreadable.push({ input: arg, code: rootError });
    } else if (typeof info !== 'string' || (info !== 'ENOENT' && info !== 'ENOTDIR')) {
      // A file named explicitly is taken whatever it is: a FIFO, a device or a path the user
      // cannot reach (EACCES) becomes that input's failed record with the reason, not a
      // silent "matched nothing".
      add(absolute);
    } else {
      // Only a path that names nothing may be a pattern: the glob library (tinyglobby with fdir
      // and picomatch, ~100 KB of code) is loaded then, not at every start-up.
      const { glob, isDynamicPattern } = await import('tinyglobby');
      if (isDynamicPattern(arg)) {
        const found = await glob([arg], { cwd, absolute: true, onlyFiles: true, dot: false });
        for (const f of found) add((await pathFromArgv(resolve(f))).path);
      } else {
        missing.push(arg);
      }
    }
    if (files.size === before) unmatched.push(arg);
  }
  // Byte order, as compareBytePaths (common/byte-path.ts), with each path's bytes made once.
  const sorted = [...files.values()].sort((a, b) => Buffer.compare(a.bytes, b.bytes));
  return { files: sorted.map((f) => f.path), unmatched, skipped, missing, unreadable };
}

/** The arguments that name folders, as absolute paths (the roots `--relative-paths` shows from). */
export async function inputFolders(
  paths: readonly string[],
  cwd = process.cwd(),
): Promise<string[]> {
  const folders: string[] = [];
  for (const arg of paths) {
    const absolute = resolve(cwd, arg);
    const info = await stat(absolute).catch(() => undefined);
    if (info?.isDirectory() === true) folders.push(absolute);
  }
  return folders;
}

/**
 * Nothing to analyse because every path named nothing, or a folder could not be listed: one
 * message and exit 1 (README: a missing input file is a failed job), not a warning per path
 * and then a usage error. An empty folder or a glob that matched nothing stays a usage error.
 */
export function refuseNoInputs(
  inputs: readonly string[],
  missing: readonly string[],
  unreadable: readonly { input: string; code: string }[],
): void {
  const [first] = unreadable;
  if (first !== undefined) {
    throw new IoError(
      `cannot read the folder "${first.input}": ${systemReason({ code: first.code })}`,
    );
  }
  if (missing.length > 0 && missing.length === inputs.length) {
    throw new IoError(`no such file or folder: ${missing.map((p) => `"${p}"`).join(', ')}`);
  }
}

/**
 * Every file under `root` whose name ends in a dump extension (any case), hidden entries left
 * out. Names are read as bytes: one that is not valid UTF-8 is kept as bytes, never decoded into
 * a name that opens nothing. Symbolic links to regular files are followed (a folder of links to
 * dumps is a folder of dumps); links to folders are not (no cycles), and what is passed over is
 * counted by reason. Returns the error code when `root` itself cannot be listed.
 */
async function scanFolder(
  root: BytePath,
  extensions: readonly string[],
  add: (path: BytePath) => void,
  skipped: Record<string, number>,
): Promise<string | undefined> {
  const count = (reason: string) => (skipped[reason] = (skipped[reason] ?? 0) + 1);
  const pending = [root];
  let rootError: string | undefined;
  for (let folder = pending.pop(); folder !== undefined; folder = pending.pop()) {
    const entries = await readdir(folder, { withFileTypes: true, encoding: 'buffer' }).catch(
      (error: unknown) => {
        if (folder === root) rootError = errorCode(error);
      },
    );
    if (entries === undefined) {
      if (folder !== root) count('unreadable folder');
      continue;
    }
    for (const entry of entries) {
      if (entry.name[0] === DOT) continue;
      const path = joinBytePath(folder, bytePathOf(entry.name));
      if (entry.isDirectory()) {
        pending.push(path);
        continue;
      }
      // Extensions are ASCII: latin1 keeps every byte one character, so the test is exact.
      const lower = entry.name.toString('latin1').toLowerCase();
      if (!extensions.some((e) => lower.endsWith(e))) continue;
      if (entry.isFile()) {
        add(path);
      } else if (entry.isSymbolicLink()) {
        const target = await stat(path).catch(() => undefined);
        if (target === undefined) count('broken link');
        else if (target.isFile()) add(path);
        else count(`link to a ${fileKind(target)}`);
      } else {
        count(fileKindOfEntry(entry));
      }
    }
  }
  return rootError;
}

const DOT = 0x2e;

function fileKindOfEntry(entry: Dirent<Buffer>): string {
  if (entry.isFIFO()) return 'FIFO';
  if (entry.isSocket()) return 'socket';
  if (entry.isCharacterDevice()) return 'character device';
  if (entry.isBlockDevice()) return 'block device';
  return 'special file';
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'UNKNOWN';
}

/**
 * `--shard auto`: the index and count a batch engine gives each copy of one command, 0-based in
 * the environment, 1-based here. Kubernetes indexed Jobs set JOB_COMPLETION_INDEX (the count is
 * the Job's `completions`, which the pod does not see: pass it as JOB_COMPLETIONS,
 * https://kubernetes.io/docs/concepts/workloads/controllers/job/#completion-mode); Slurm job
 * arrays set SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT/SLURM_ARRAY_TASK_MIN
 * (https://slurm.schedmd.com/job_array.html); AWS Batch array jobs set AWS_BATCH_JOB_ARRAY_INDEX
 * (the size is not in the environment: AWS_BATCH_JOB_ARRAY_SIZE, set by the job definition,
 * https://docs.aws.amazon.com/batch/latest/userguide/array_jobs.html).
 */
export function shardFromEnvironment(env: NodeJS.ProcessEnv = process.env): {
  index: number;
  count: number;
} {
  const sources: {
    name: string;
    index: string | undefined;
    count: string | undefined;
    min?: string | undefined;
  }[] = [
    { name: 'Kubernetes', index: env.JOB_COMPLETION_INDEX, count: env.JOB_COMPLETIONS },
    {
      name: 'Slurm',
      index: env.SLURM_ARRAY_TASK_ID,
      count: env.SLURM_ARRAY_TASK_COUNT,
      min: env.SLURM_ARRAY_TASK_MIN,
    },
    {
      name: 'AWS Batch',
      index: env.AWS_BATCH_JOB_ARRAY_INDEX,
      count: env.AWS_BATCH_JOB_ARRAY_SIZE,
    },
  ];
  for (const source of sources) {
    if (source.index === undefined) continue;
    const index = Number(source.index) - Number(source.min ?? 0);
    const count = Number(source.count);
    if (!Number.isInteger(index) || !Number.isInteger(count) || index < 0 || index >= count) {
      throw new UsageError(
        `--shard auto: ${source.name} index ${source.index} with count ${source.count ?? '(not set)'} is not a shard (see docs/queue.md)`,
      );
    }
    return { index: index + 1, count };
  }
  throw new UsageError(
    '--shard auto: no batch-engine index in the environment (JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID or AWS_BATCH_JOB_ARRAY_INDEX)',
  );
}

/** `--shard I/N` (1-based, like Jest and Playwright): `2/4` → {index: 2, count: 4}. */
export function parseShard(
  text: string,
  env: NodeJS.ProcessEnv = process.env,
): { index: number; count: number } {
  if (text.trim() === 'auto') return shardFromEnvironment(env);
  // Sample: "2/4"
  const match = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (!match || count < 1 || index < 1 || index > count) {
    throw new UsageError(`--shard wants I/N with 1 <= I <= N (e.g. 2/4), got "${text}"`);
  }
  return { index, count };
}

/**
 * Which shard a dump belongs to, from its content hash: the same dump lands in the same shard on
 * every machine, whatever its path, and shards come out about the same size.
 */
export function shardOf(sha256: string, count: number): number {
  return (Number.parseInt(sha256.slice(0, 8), 16) % count) + 1;
}
