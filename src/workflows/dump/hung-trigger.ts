// ProcDump's -h: dump when a top-level window of the process has not answered for 5 s
// (https://learn.microsoft.com/sysinternals/downloads/procdump); here --hung-after changes the
// 5 s. Each poll runs native/window-probe (built into build/native/window-probe.exe by
// scripts/build-native.sh) on the target's host, through the same Wine under Linux: it sends each
// visible top-level window of the pid WM_NULL with SendMessageTimeout(SMTO_ABORTIFHUNG), as
// Windows decides a window is hung, and never attaches, so watching does not suspend the target.
import { execa } from 'execa';
import { AbortedError, TargetError, UsageError } from '../../errors.js';
import { holdUntil, type Sampler } from './hold-loop.js';
import type { Firing } from './trigger-log.js';
import { nativeHelperCommand, nativeHelperPath } from '../../platform/index.js';

export const DEFAULT_HUNG_AFTER_MS = 5000;
/** How long one WM_NULL may take before the window counts as silent for that poll. */
const ANSWER_TIMEOUT_MS = 500;
/** A probe run is bounded: EnumWindows plus one bounded send per window. */
const PROBE_DEADLINE_MS = 30_000;
/** At most this many probe lines are read (a process with more windows is cut there). */
const MAX_WINDOWS = 4096;

export interface WindowState {
  hwnd: string;
  answers: boolean;
  /** IsHungAppWindow: no message retrieved for 5 s. */
  hungFlag: boolean;
  className: string;
  title: string;
}

/** One probe run: the windows, or null when the process has gone. */
export type ProbeReading = WindowState[] | null;

// WINDOW	10048	silent	1	HangWin	hang test
const WINDOW_LINE_RE = /^WINDOW\t([0-9a-f]+)\t(answers|silent)\t([01])\t([^\t]*)\t(.*)$/;

/** Parses window-probe's output (native/window-probe/window-probe.c says its shape). */
function parseWindowProbe(stdout: string): ProbeReading {
  const lines = stdout.split(/\r?\n/);
  if (lines.some((l) => l.trim() === 'GONE')) return null;
  if (!lines.some((l) => l.startsWith('END'))) {
    throw new TargetError(
      'unreadable',
      `window-probe printed no END line: ${stdout.slice(0, 200)}`,
    );
  }
  const windows: WindowState[] = [];
  for (const line of lines) {
    const m = WINDOW_LINE_RE.exec(line);
    if (m === null) continue;
    windows.push({
      hwnd: `0x${m[1] ?? ''}`,
      answers: m[2] === 'answers',
      hungFlag: m[3] === '1',
      className: m[4] ?? '',
      title: (m[5] ?? '').slice(0, 256),
    });
    if (windows.length >= MAX_WINDOWS) break;
  }
  return windows;
}

/** The probe executable: $CDB_HARNESS_WINDOW_PROBE, else the package's build/native one. */
export function windowProbePath(env: NodeJS.ProcessEnv = process.env): string {
  const { path, exists } = nativeHelperPath('window-probe', 'CDB_HARNESS_WINDOW_PROBE', env);
  if (!exists) {
    throw new UsageError(
      `-h needs the window probe ${path}, which is missing: the npm package ships it; in a clone, build it with scripts/build-native.sh (mingw); or point CDB_HARNESS_WINDOW_PROBE at it`,
    );
  }
  return path;
}

export type WindowProbe = (pid: number, signal?: AbortSignal) => Promise<ProbeReading>;

/** Runs the probe: directly on Windows, through `wine` (the target's Wine: same env) elsewhere. */
export function windowProbe(options: { env?: NodeJS.ProcessEnv } = {}): WindowProbe {
  const env = options.env ?? process.env;
  const exe = windowProbePath(env);
  return async (pid, signal) => {
    const command = nativeHelperCommand(exe, [String(pid), String(ANSWER_TIMEOUT_MS)]);
    const result = await execa(command.file, command.args, {
      env,
      reject: false,
      timeout: PROBE_DEADLINE_MS,
      maxBuffer: 1024 * 1024,
      ...(signal === undefined ? {} : { cancelSignal: signal }),
    });
    if (signal?.aborted === true) throw new AbortedError('interrupted while asking the windows');
    if (result.exitCode !== 0) {
      throw new TargetError(
        'unreadable',
        `window-probe exited ${String(result.exitCode)}: ${String(result.stderr).slice(0, 300)}`,
      );
    }
    return parseWindowProbe(String(result.stdout));
  };
}

export interface HungTrigger {
  /** How long a window must stay silent (ProcDump: 5 s; --hung-after). */
  hungAfterMs: number;
}

export type HungReading = { windows: number; silent: number; silentForMs: number };

/** One probe: when it was answered, the windows, and the longest-silent one since when. */
interface HungSample {
  atMs: number;
  windows: number;
  silent: number;
  worst: { window: WindowState; since: number } | null;
}

/**
 * Probes every pollMs until one window has been silent for hungAfterMs; the firing, or null when
 * the process has gone. A window is silent from the first poll it did not answer; one answer
 * resets it.
 */
export async function waitForHungWindow(
  pid: number,
  probe: WindowProbe,
  trigger: HungTrigger,
  options: { pollMs: number; signal?: AbortSignal; onReading?: (reading: HungReading) => void },
): Promise<Firing | null> {
  const silentSince = new Map<string, number>();
  const sample: Sampler<HungSample> = async (signal) => {
    const started = performance.now();
    const windows = await probe(pid, signal);
    if (windows === null) return null;
    const now = performance.now();
    const seen = new Set(windows.map((w) => w.hwnd));
    for (const hwnd of silentSince.keys()) if (!seen.has(hwnd)) silentSince.delete(hwnd);
    let worst: HungSample['worst'] = null;
    for (const window of windows) {
      if (window.answers) {
        silentSince.delete(window.hwnd);
        continue;
      }
      // Silent since the send began, not since it timed out.
      const since = silentSince.get(window.hwnd) ?? started;
      silentSince.set(window.hwnd, since);
      if (worst === null || since < worst.since) worst = { window, since };
    }
    return { atMs: now, windows: windows.length, silent: silentSince.size, worst };
  };
  // Each window's silence counts from its own first unanswered send, so the hold is the
  // longest-silent window's, not the run of polls that found some window silent.
  const held = await holdUntil(
    sample,
    { met: (s) => s.worst !== null, heldSince: (s) => s.worst?.since ?? s.atMs },
    {
      holdMs: trigger.hungAfterMs,
      pollMs: options.pollMs,
      waiting: 'waiting for a hung window',
      signal: options.signal,
      onSample: (s, { heldMs }) =>
        options.onReading?.({ windows: s.windows, silent: s.silent, silentForMs: heldMs }),
    },
  );
  if (held === null || held.sample.worst === null) return null;
  const seconds = Math.round(held.heldMs / 100) / 10;
  const { window } = held.sample.worst;
  return {
    trigger: 'hung-window',
    value: seconds,
    threshold: trigger.hungAfterMs / 1000,
    unit: 'seconds',
    heldFor: seconds,
    reason: `window ${window.hwnd} "${window.title}" (class ${window.className}) has not answered for ${seconds.toFixed(1)} s (-h, --hung-after ${trigger.hungAfterMs / 1000}s${window.hungFlag ? '; IsHungAppWindow says hung' : ''})`,
    atMs: held.sample.atMs,
  };
}
