// The text `inspect` prints for people: a triage block per dump (process, system, exception,
// CLR, threads, modules, memory, handles, flags and the walked stacks from inspect-stacks-text.ts),
// and the line of a dump that could not be read. Names from the dump arrive escaped for the
// terminal (the caller runs escapeStrings); the JSON keeps them raw.
import type { InspectedDump, InspectedDumpOk } from '../../report/inspect/inspect-json.js';
import { truncatedStreams } from '../../processor/truncated-streams.js';
import { formatStacks, TRUST_LEGEND } from './inspect-stacks-text.js';

/** `crash.dmp: not readable (BAD_DUMP): not a minidump …`, then its warnings, indented. */
export function failureText(dump: Extract<InspectedDump, { ok: false }>): string {
  return [
    `${dump.file}: not readable (${dump.error.code}): ${dump.error.message}`,
    ...dump.warnings.map((w) => `  warning: ${w}`),
  ].join('\n');
}

/** The readable triage block for one dump. */
export function formatText(dump: InspectedDump, verbose = false, brief = false): string {
  if (!dump.ok) {
    return [
      `${dump.file}: NOT READABLE (${dump.error.code})`,
      `  ${dump.error.message}`,
      ...dump.warnings.map((w) => `  warning: ${w}`),
      '',
    ].join('\n');
  }
  const lines: string[] = [];
  const row = (label: string, text: string) => lines.push(`  ${label.padEnd(10)}${text}`);
  const writer = dump.writer === undefined ? '' : `, written by ${dump.writer}`;
  const cut = truncatedStreams(dump);
  lines.push(
    `${dump.file}: ${dump.truncated ? 'TRUNCATED ' : ''}${dump.dumpKind === 'full' ? 'full-memory dump' : 'minidump'}${writer}, ${formatBytes(dump.fileSize)}, taken ${dump.dumpTimestamp}`,
  );
  row('process', describeProcess(dump));
  if (dump.system) {
    const csd = dump.system.csd ? ` ${dump.system.csd}` : '';
    const wine = dump.system.wineBuild === undefined ? '' : ` under ${dump.system.wineBuild}`;
    row(
      'system',
      `${dump.system.arch}, ${dump.system.platform} ${dump.system.osVersion}${csd}, ${dump.system.cpuCount} CPU(s)${wine}`,
    );
  }
  const ex = dump.exception;
  if (ex) {
    row('exception', `${ex.code} ${ex.name}`);
    const where =
      ex.module === undefined
        ? ', outside any loaded module'
        : ` in ${ex.module}+${ex.moduleOffset ?? '0x0'}`;
    row('', `on thread ${ex.threadId} (0x${ex.threadId.toString(16)}) at ${ex.address}${where}`);
    if (ex.parameters.length > 0) row('', `parameters ${ex.parameters.join(' ')}`);
    const clrEx = ex.clr;
    if (clrEx?.hresult !== undefined) {
      const name = clrEx.hresultName === undefined ? '' : ` ${clrEx.hresultName}`;
      const types = clrEx.types === undefined ? '' : ` (${clrEx.types.join(', ')})`;
      const by = clrEx.raisedBy === undefined ? '' : `, raised by ${clrEx.raisedBy}`;
      row('', `HRESULT ${clrEx.hresult}${name}${types}${by}`);
    } else if (clrEx?.note !== undefined) {
      row('', clrEx.note);
    }
    row('faulting', ex.module ?? '(no module holds the exception address)');
  } else if (cut.includes(streamName(dump, EXCEPTION_STREAM) ?? '\0')) {
    row('exception', 'UNKNOWN: the exception stream was cut off with the end of the file');
  } else {
    row('exception', 'none (the dump has no exception stream)');
  }
  if (dump.clr) {
    const version = dump.clr.fileVersion === undefined ? '' : ` ${dump.clr.fileVersion}`;
    row('clr', `${dump.clr.runtime}: ${dump.clr.module}${version} at ${dump.clr.base}`);
  }
  row('threads', `${dump.threads.length}`);
  // --brief: the header and the crashing thread's stack, without the modules, memory and the rest.
  if (!brief) detailRows(dump, verbose, row);
  const stacks = formatStacks(dump);
  for (const line of stacks) lines.push(line);
  if (stacks.length > 0) lines.push(`  ${TRUST_LEGEND}`);
  for (const warning of dump.warnings) row('warning', warning);
  lines.push('');
  return lines.join('\n');
}

/** Modules, memory, handles, comments and flags; with verbose, every thread and module too. */
function detailRows(
  dump: Extract<InspectedDump, { ok: true }>,
  verbose: boolean,
  row: (label: string, text: string) => void,
): void {
  const withIds = dump.modules.filter((m) => m.debugId !== undefined).length;
  row(
    'modules',
    `${dump.modules.length} (${withIds} with debug ids, ${dump.modules.length - withIds} without)${dump.unloadedModules.length > 0 ? `, ${dump.unloadedModules.length} unloaded` : ''}`,
  );
  const sources = dump.memory.sources.length > 0 ? ` from ${dump.memory.sources.join(' + ')}` : '';
  row(
    'memory',
    `${formatBytes(dump.memory.totalBytes)} captured in ${dump.memory.rangeCount} range(s)${sources}${dump.memory.missingBytes > 0 ? `, ${formatBytes(dump.memory.missingBytes)} missing` : ''}`,
  );
  const info = dump.memory.info;
  if (info)
    row(
      '',
      `committed ${formatBytes(info.committedBytes)} (private ${formatBytes(info.privateCommittedBytes ?? 0)}), reserved ${formatBytes(info.reservedBytes)}, ${info.regionCount} regions`,
    );
  if (dump.handles) {
    const top = Object.entries(dump.handles.byType)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 5)
      .map(([t, n]) => `${t} ${n}`);
    row('handles', `${dump.handles.count} (${top.join(', ')})`);
  }
  for (const comment of dump.comments ?? []) row('comment', comment);
  row('flags', `${dump.flags} (as written by the dump writer)`);
  if (verbose) {
    for (const t of dump.threads) {
      row(
        'thread',
        `${t.id} (0x${t.id.toString(16)})${t.faulting === true ? ' *faulting*' : ''}${t.name === undefined ? '' : ` "${t.name}"`} teb ${t.teb} stack ${t.stackStart}+${t.stackSize}`,
      );
    }
    for (const m of dump.modules) {
      row(
        'module',
        `${m.base} ${m.name}${m.fileVersion === undefined ? '' : ` ${m.fileVersion}`}${m.debugId === undefined ? ' (no debug id)' : ` ${m.pdbName ?? ''} ${m.debugId}`}`,
      );
    }
  }
}

// MINIDUMP_STREAM_TYPE ExceptionStream
const EXCEPTION_STREAM = 6;

function streamName(dump: InspectedDumpOk, type: number): string | undefined {
  return dump.streams.find((s) => s.type === type)?.name;
}

function describeProcess(dump: InspectedDumpOk): string {
  const p = dump.process;
  const parts = [p.name ?? '(main module unknown)'];
  if (p.pid !== undefined) parts.push(`pid ${p.pid} (0x${p.pid.toString(16)})`);
  if (p.uptimeSeconds !== undefined) parts.push(`up ${formatUptime(p.uptimeSeconds)}`);
  return parts.join(', ');
}

/** 0 → `less than 1 s`, 75 → `1 min 15 s`, 93784 → `1 d 2 h 3 min` (the dump's whole seconds). */
export function formatUptime(seconds: number): string {
  if (seconds < 1) return 'less than 1 s';
  const units: [number, string][] = [
    [86_400, 'd'],
    [3600, 'h'],
    [60, 'min'],
    [1, 's'],
  ];
  const parts: string[] = [];
  let rest = Math.floor(seconds);
  for (const [size, name] of units) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)} ${name}`);
      rest %= size;
    }
  }
  return parts.slice(0, 3).join(' ');
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit] ?? 'TB'}`;
}
