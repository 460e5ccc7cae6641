// A Windows performance counter read from outside the target, for ProcDump's -p/-pl: one sample
// of `typeperf "<path>" -sc 1`, which every Windows ships (PDH underneath;
// https://learn.microsoft.com/windows-server/administration/windows-commands/typeperf). Its
// CSV: a header row `"(PDH-CSV 4.0)","\\HOST\Object(Instance)\Counter"` and one row per sample,
// `"<time>","<value>"`. Wine ships no typeperf.exe and only a few counters in its pdh.dll, so
// under Wine (and on Linux) there is no counter to read: refused, saying so.
import { execa } from 'execa';
import { TargetError, UsageError } from '../../../errors.js';
import { currentPlatform, isWindowsHost } from '../../../platform/index.js';

export interface CounterSample {
  value: number;
  /** When it was read (performance.now()). */
  atMs: number;
}

export interface CounterSource {
  readonly describe: string;
  /** The counter now; throws when it cannot be read. */
  read(): Promise<CounterSample>;
}

/** One CSV row of quoted fields (typeperf quotes every field; "" is a quote inside one). */
function csvFields(line: string): string[] | null {
  const fields: string[] = [];
  // "08/09/2023 13:43:32.695","1358.000000"
  const FIELD_RE = /"((?:[^"]|"")*)"(,|$)/gy;
  let m: RegExpExecArray | null;
  let at = 0;
  while ((m = FIELD_RE.exec(line)) !== null) {
    fields.push((m[1] ?? '').replace(/""/g, '"'));
    at = FIELD_RE.lastIndex;
    if (m[2] === '') break;
  }
  return at === line.length && fields.length > 0 ? fields : null;
}

/**
 * The value of the one counter in typeperf's CSV output (the last sample row), or a TargetError
 * quoting what typeperf printed instead (an unknown counter: no header and no sample).
 */
export function parseTypeperfCsv(stdout: string, path: string): number {
  const rows = stdout
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l.startsWith('"'))
    .map(csvFields)
    .filter((r): r is string[] => r !== null);
  const header = rows.findIndex((r) => /^\(PDH-CSV [\d.]+\)$/.test(r[0] ?? ''));
  const sample = header < 0 ? undefined : rows.slice(header + 1).pop();
  const text = sample?.[1]?.trim() ?? '';
  const value = Number(text);
  if (sample === undefined || text === '' || !Number.isFinite(value)) {
    const said = stdout.trim().split(/\r?\n/).slice(0, 3).join(' / ').slice(0, 300);
    throw new TargetError(
      'unreadable',
      `typeperf gave no value for ${JSON.stringify(path)}${said === '' ? '' : `: ${said}`}`,
    );
  }
  return value;
}

/** Where counter `path` is read on this host: typeperf on Windows; refused elsewhere. */
export function typeperfCounterSource(
  path: string,
  options: { env?: NodeJS.ProcessEnv; platform?: NodeJS.Platform } = {},
): CounterSource {
  const platform = options.platform ?? currentPlatform();
  if (!isWindowsHost(platform)) {
    throw new UsageError(
      `performance counters are Windows' PDH; this host (${platform}) has none, and Wine has no typeperf.exe and only a few system counters in its pdh.dll, so ${JSON.stringify(path)} cannot be read here. Nothing was run`,
    );
  }
  const env = options.env ?? process.env;
  return {
    describe: `typeperf "${path}" -sc 1`,
    async read() {
      const result = await execa('typeperf.exe', [path, '-sc', '1'], {
        env,
        reject: false,
        timeout: 15_000,
        maxBuffer: 1024 * 1024,
      });
      const atMs = performance.now();
      return { value: parseTypeperfCsv(String(result.stdout), path), atMs };
    },
  };
}
