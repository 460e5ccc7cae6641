// The CPU time of a process when the harness is a Windows process: Get-Process's
// TotalProcessorTime, which is GetProcessTimes' user + kernel time
// (https://learn.microsoft.com/dotnet/api/system.diagnostics.process.totalprocessortime).
// Output that is not a number is never 0 ms: an empty answer (Wine's powershell is a stub that
// prints nothing) read as 0 made a CPU trigger show 0.0 % forever. It is "gone" when the pid has
// gone, otherwise a TargetError saying what powershell answered.
import { availableParallelism } from 'node:os';
import { TargetError } from '../../errors.js';
import { pidAlive } from '../common/host.js';
import type { CpuSource } from '../common/types.js';

export interface PowershellAnswer {
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
}

/** Milliseconds from Get-Process's answer; null when the process has gone; else a TargetError. */
export function cpuMsFromPowershell(
  pid: number,
  answer: PowershellAnswer,
  alive: (pid: number) => boolean = pidAlive,
): number | null {
  const text = answer.stdout.trim();
  // Sample answer: "1234.5625" (TotalMilliseconds; a decimal point whatever the locale).
  if (answer.exitCode === 0 && /^\d+(?:\.\d+)?$/.test(text)) return Number(text);
  if (!alive(pid)) return null;
  const said = (text || answer.stderr.trim()).split(/\r?\n/)[0] ?? '';
  throw new TargetError(
    'unreadable',
    `cannot read the CPU time of pid ${pid}: powershell Get-Process exited ${String(answer.exitCode)} and printed ${said === '' ? 'nothing' : JSON.stringify(said.slice(0, 200))}, not a number of milliseconds`,
  );
}

export function windowsCpuSource(pid: number, env: NodeJS.ProcessEnv): CpuSource {
  return {
    describe: `Get-Process -Id ${pid} (TotalProcessorTime)`,
    cores: availableParallelism(),
    async read() {
      const { execa } = await import('execa');
      const result = await execa(
        'powershell.exe',
        [
          '-NoProfile',
          '-NonInteractive',
          '-Command',
          `(Get-Process -Id ${pid} -ErrorAction Stop).TotalProcessorTime.TotalMilliseconds`,
        ],
        { env, reject: false, timeout: 10_000 },
      );
      const atMs = performance.now();
      const cpuMs = cpuMsFromPowershell(pid, {
        exitCode: result.exitCode,
        stdout: String(result.stdout),
        stderr: String(result.stderr),
      });
      return cpuMs === null ? null : { cpuMs, atMs };
    },
  };
}
