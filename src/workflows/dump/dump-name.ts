// Dump file names. ProcDump's tokens (PROCESSNAME, PID, EXCEPTIONCODE, YYMMDD, HHMMSS; see
// https://learn.microsoft.com/en-us/sysinternals/downloads/procdump) in a fixed order, so a folder
// of dumps sorts by process and reads at a glance:
//   dump:  w3wp.exe_1234_251121_124859.dmp              (process, pid, date, time)
//   watch: raise.exe_1234_e0434352_251121_124859.dmp   (process, pid, code[-Type], date, time)
// Only [A-Za-z0-9._-] survive: the name goes onto a debugger command line (winedbg's `minidump`
// misreads spaces, colons and backslashes: see the winedbg dialect's writeDumpCommand), and it must be the same on every filesystem.

/** Replaces anything outside [A-Za-z0-9._-] with `_`, and never returns an empty or dot name. */
export function safeFileComponent(text: string, fallback = 'process'): string {
  const cleaned = text.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '');
  return cleaned.length === 0 ? fallback : cleaned.slice(0, 80);
}

function two(n: number): string {
  return String(n).padStart(2, '0');
}

/** Local date and time as `yyMMdd` and `HHmmss` (ProcDump's YYMMDD and HHMMSS). */
export function dateTimeParts(time: Date): { date: string; time: string } {
  return {
    date: `${two(time.getFullYear() % 100)}${two(time.getMonth() + 1)}${two(time.getDate())}`,
    time: `${two(time.getHours())}${two(time.getMinutes())}${two(time.getSeconds())}`,
  };
}

/** `w3wp` → `w3wp.exe`: names are shown as Windows lists them. */
export function imageName(process: string): string {
  return /\.exe$/i.test(process) ? process : `${process}.exe`;
}

/** `dump`: `<process>.exe_<pid>_<yyMMdd>_<HHmmss>.dmp`. */
export function snapshotDumpName(process: string, pid: number, time: Date): string {
  const { date, time: clock } = dateTimeParts(time);
  return `${safeFileComponent(imageName(process))}_${pid}_${date}_${clock}.dmp`;
}

/**
 * `watch`: `<process>.exe_<pid>_<code>[-<ShortType>]_<yyMMdd>_<HHmmss>.dmp`; the CLR type's last
 * part (`InvalidOperationException`) tells managed dumps of the same code apart.
 */
export function exceptionDumpName(input: {
  process: string;
  pid: number;
  code: string | null;
  clrType?: string | undefined;
  time: Date;
}): string {
  const { date, time: clock } = dateTimeParts(input.time);
  let what = (input.code ?? 'unknown').replace(/^0x/, '');
  if (input.clrType !== undefined && input.clrType.length > 0) {
    what += `-${safeFileComponent(input.clrType.slice(input.clrType.lastIndexOf('.') + 1), 'clr')}`;
  }
  return `${safeFileComponent(imageName(input.process))}_${input.pid}_${safeFileComponent(what)}_${date}_${clock}.dmp`;
}

/** `x.dmp` → `x_2.dmp`, `x_3.dmp`…: two dumps in the same second never share a name. */
export function numberedName(name: string, n: number): string {
  if (n <= 1) return name;
  const dot = name.lastIndexOf('.');
  return dot < 0 ? `${name}_${n}` : `${name.slice(0, dot)}_${n}${name.slice(dot)}`;
}
