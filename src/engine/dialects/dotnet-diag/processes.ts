// The .NET processes of this machine, found the way the runtime publishes them: each runtime
// (.NET Core 3.0+) listens on a Unix socket `dotnet-diagnostic-{pid}-{disambiguation key}-socket`
// in $TMPDIR (or /tmp), the default diagnostics port (ipc-protocol.md, "Transport":
// https://github.com/dotnet/diagnostics/blob/main/documentation/design-docs/ipc-protocol.md).
// Names come from /proc: the executable's file name, and for `dotnet app.dll` the dll's too.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

// dotnet-diagnostic-28619-1796529843-socket
const SOCKET_RE = /^dotnet-diagnostic-(\d+)-\d+-socket$/;
const MAX_ENTRIES = 100_000;

export interface DotnetProcess {
  pid: number;
  /** The executable's file name (`cdbh-dotnet`, `dotnet`). */
  name: string;
  /** Other names it answers to: the managed entry assembly of `dotnet app.dll`, without `.dll`. */
  aliases: string[];
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function namesOf(pid: number): { name: string; aliases: string[] } {
  let name = '';
  const aliases: string[] = [];
  try {
    name = basename(readlinkSync(`/proc/${pid}/exe`));
  } catch {
    // another user's process: /proc/PID/comm is still readable
  }
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, 64);
    if (name === '' && argv[0] !== undefined) name = basename(argv[0]);
    const dll = argv.slice(1).find((a) => a.toLowerCase().endsWith('.dll'));
    if (dll !== undefined) aliases.push(basename(dll).replace(/\.dll$/i, ''));
    if (argv[0] !== undefined && basename(argv[0]) !== name) aliases.push(basename(argv[0]));
  } catch {
    // gone meanwhile
  }
  if (name === '') {
    try {
      name = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    } catch {
      name = '?';
    }
  }
  return { name, aliases };
}

/** The diagnostics sockets in TMPDIR (bounded), with the pid each belongs to. */
function sockets(env: NodeJS.ProcessEnv): { pid: number; path: string }[] {
  const dir = socketFolder(env);
  let entries: string[];
  try {
    entries = readdirSync(dir).slice(0, MAX_ENTRIES);
  } catch {
    return [];
  }
  const found: { pid: number; path: string }[] = [];
  for (const entry of entries) {
    const m = SOCKET_RE.exec(entry);
    if (m !== null) found.push({ pid: Number(m[1]), path: join(dir, entry) });
  }
  return found;
}

/** Pids that publish a diagnostics socket, alive, in pid order. */
export function publishedPids(env: NodeJS.ProcessEnv = process.env): number[] {
  const pids = new Set(sockets(env).map((s) => s.pid));
  return [...pids].filter(alive).sort((a, b) => a - b);
}

/** The diagnostics socket `pid` listens on, or undefined (none published in TMPDIR). */
export function diagnosticSocket(
  pid: number,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  return sockets(env).find((s) => s.pid === pid)?.path;
}

/** The live .NET processes with a diagnostics channel. */
export function listDotnetDiagProcesses(env: NodeJS.ProcessEnv = process.env): DotnetProcess[] {
  return publishedPids(env).map((pid) => ({ pid, ...namesOf(pid) }));
}

/** Whether `name` (`app`, `app.dll`, `app.exe`, case-insensitive) names this process. */
export function dotnetProcessMatches(proc: DotnetProcess, name: string): boolean {
  const want = name.toLowerCase().replace(/\.(?:dll|exe)$/, '');
  return [proc.name, ...proc.aliases].some(
    (n) => n.toLowerCase().replace(/\.(?:dll|exe)$/, '') === want,
  );
}

/** For messages: where the sockets are looked for. */
export function socketFolder(env: NodeJS.ProcessEnv = process.env): string {
  return join(env['TMPDIR'] ?? tmpdir());
}
