// What the host platform seam hands out (src/platform/index.ts).

export interface CpuSample {
  /** User + kernel CPU time used so far, in milliseconds. */
  cpuMs: number;
  /** When it was read (performance.now()). */
  atMs: number;
}

export interface CpuSource {
  /** How the time is read, for messages and events (`/proc/4242/stat (Wine host of pid 32)`). */
  readonly describe: string;
  /** Logical processors: 100 % of all of them is the whole machine. */
  readonly cores: number;
  /** The time now; null when the process has gone. Throws a TargetError when it cannot be read. */
  read(): Promise<CpuSample | null>;
}
