// Ends a process and every descendant. On Linux the tree comes from /proc/<pid>/stat (field 4 is
// the parent pid); it is collected before signalling, so children re-parented by their parent's
// death are still found. Zombies count as gone: in some sandboxes PID 1 never reaps them
// (containers without an init). On Windows `taskkill /T /F` does the walk
// (../windows/kill-tree.ts); killTree() in ../index.ts picks the host's.
import { readdirSync, readFileSync } from 'node:fs';

export interface KillTreeOptions {
  signal?: NodeJS.Signals;
  /** Give up waiting for the tree to disappear after this long (it is SIGKILLed half-way). */
  deadlineMs?: number;
}

interface ProcInfo {
  pid: number;
  ppid: number;
  state: string;
}

// /proc/1234/stat: "1234 (wine64-preload) S 1200 1234 …" — the name may contain spaces and
// parentheses, so parse from the last ')'.
function readStat(pid: number): ProcInfo | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = stat.lastIndexOf(')');
    const fields = stat.slice(close + 2).split(' ');
    return { pid, ppid: Number(fields[1]), state: fields[0] ?? '?' };
  } catch {
    return null;
  }
}

function listProcesses(): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const name of readdirSync('/proc')) {
    const first = name.charCodeAt(0);
    if (first < 0x30 || first > 0x39) continue;
    const info = readStat(Number(name));
    if (info) out.push(info);
  }
  return out;
}

/** The pids and all their descendants (Linux, via /proc), parents before children. */
export function processTree(roots: number | readonly number[]): number[] {
  const children = new Map<number, number[]>();
  for (const p of listProcesses()) {
    const list = children.get(p.ppid);
    if (list) list.push(p.pid);
    else children.set(p.ppid, [p.pid]);
  }
  const result: number[] = [];
  const queue = typeof roots === 'number' ? [roots] : [...roots];
  const seen = new Set<number>();
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    if (seen.has(pid)) continue;
    seen.add(pid);
    result.push(pid);
    for (const child of children.get(pid) ?? []) queue.push(child);
  }
  return result;
}

/** True when the process exists and is not a zombie. */
export function isAlive(pid: number): boolean {
  const info = readStat(pid);
  return info !== null && info.state !== 'Z' && info.state !== 'X';
}

function signalAll(pids: readonly number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

/** Signals the tree (SIGTERM, SIGKILL half-way to the deadline) until every member is gone. */
export async function killTreeUnix(rootPid: number, options: KillTreeOptions = {}): Promise<void> {
  const deadlineMs = options.deadlineMs ?? 5000;
  const signal = options.signal ?? 'SIGTERM';
  const known = new Set(processTree(rootPid));
  signalAll([...known], signal);
  const start = performance.now();
  let escalated = signal === 'SIGKILL';
  for (;;) {
    // Pick up children forked between the walk and the signal.
    const fresh = processTree([...known]).filter((pid) => !known.has(pid));
    for (const pid of fresh) known.add(pid);
    signalAll(fresh, escalated ? 'SIGKILL' : signal);
    const alive = [...known].filter(isAlive);
    if (alive.length === 0) return;
    const elapsed = performance.now() - start;
    if (elapsed > deadlineMs) return;
    if (!escalated && elapsed > deadlineMs / 2) {
      signalAll(alive, 'SIGKILL');
      escalated = true;
    }
    await sleep(20);
  }
}
