// How cdb's platform (Windows) lists processes: `tasklist /fo csv /nh`, read here. cdb under Wine
// (a Linux host, no tasklist) lists the prefix's processes through Wine (wine-host-list.ts).
import { findOnPath } from '../../../platform/index.js';
import { TargetError } from '../../../errors.js';
import type { ProcessInfo, ProcessListOptions } from '../common/types.js';
import { currentPlatform, isWindowsHost } from '../../../platform/index.js';

const DEFAULT_TIMEOUT_MS = 15_000;

/** Splits one CSV row with quoted fields (`"a,b","c"`); `""` inside quotes is a literal quote. */
function csvFields(line: string): string[] | null {
  const fields: string[] = [];
  let i = 0;
  while (i < line.length) {
    if (line[i] !== '"') return null;
    let value = '';
    i++;
    for (;;) {
      if (i >= line.length) return null;
      const ch = line[i];
      if (ch === '"') {
        if (line[i + 1] === '"') {
          value += '"';
          i += 2;
          continue;
        }
        i++;
        break;
      }
      value += ch;
      i++;
    }
    fields.push(value);
    if (i < line.length) {
      if (line[i] !== ',') return null;
      i++;
    }
  }
  return fields;
}

// A tasklist /fo csv /nh row (real shape, published in several projects' fixtures):
// "explorer.exe","5144","Console","3","938,060 K"
// The memory column holds a comma inside its quotes, hence a CSV reader and not split(',').
// Lines that are not rows (`INFO: No tasks are running which match the specified criteria.`, which
// is localised) are skipped.
const MEM_KB = /^([\d,.\s\u00a0]+)\s*K$/i;

/** Parses `tasklist /fo csv /nh` (a header row, if present, is skipped: its PID is not a number). */
export function parseTasklistCsv(text: string): ProcessInfo[] {
  const out: ProcessInfo[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '') continue;
    const fields = csvFields(line);
    const name = fields?.[0];
    const pidText = fields?.[1];
    if (name === undefined || pidText === undefined || !/^\d+$/.test(pidText)) continue;
    const info: ProcessInfo = { pid: Number(pidText), name };
    const mem = MEM_KB.exec(fields?.[4] ?? '');
    if (mem?.[1] !== undefined) {
      const kb = Number(mem[1].replace(/[^\d]/g, ''));
      if (Number.isFinite(kb)) info.memKb = kb;
    }
    out.push(info);
  }
  return out;
}

/**
 * Every process cdb can debug, in listing order: tasklist's on Windows (or wherever a `tasklist`
 * is on PATH), the Wine prefix's on any other host.
 */
export async function listCdbHostProcesses(
  options: ProcessListOptions,
  platform: NodeJS.Platform = currentPlatform(),
): Promise<ProcessInfo[]> {
  if (isWindowsHost(platform) || findOnPath('tasklist', options.env ?? process.env) !== undefined) {
    return listTasklistProcesses(options);
  }
  return (await import('./wine-host-list.js')).listWineHostProcesses(options);
}

/** Every process tasklist shows, in listing order. */
export async function listTasklistProcesses(options: ProcessListOptions): Promise<ProcessInfo[]> {
  // Loaded here, not at the top: execa is ~100 modules that `--help` and the dump readers
  // never need (bench/cli-start.ts).
  const { execa } = await import('execa');
  const result = await execa('tasklist', ['/fo', 'csv', '/nh'], {
    env: options.env ?? process.env,
    timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    reject: false,
    extendEnv: true,
    ...(options.signal === undefined ? {} : { cancelSignal: options.signal }),
  });
  if (options.signal?.aborted === true) throw options.signal.reason;
  if (result.exitCode !== 0 || result.failed) {
    throw new TargetError(
      'list-failed',
      `could not list processes with tasklist /fo csv /nh: ${result.shortMessage ?? 'failed'}`,
      { lastOutput: String(result.stderr).split('\n') },
    );
  }
  return parseTasklistCsv(String(result.stdout));
}
