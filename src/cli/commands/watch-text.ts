// What `watch` prints for people: one ProcDump-like line per event on stderr
// (`[hh:mm:ss] Exception: …`) and the summary at the end.
import type { WatchEvent } from '../../workflows/watch/watch.js';
import type { WatchSummary } from '../../workflows/watch/watch-records.js';

function clock(iso: string): string {
  return iso.slice(11, 19);
}

/** One readable line per event (stderr), ProcDump-like: `[hh:mm:ss] Exception: …`. */
export function formatWatchEvent(event: WatchEvent): string | null {
  switch (event.type) {
    case 'waiting':
      return `Waiting for a process named ${event.name}...`;
    case 'attached':
      return `Watching ${event.name ?? '?'} (pid ${event.pid ?? '?'}) with ${event.engine} (attached in ${Math.round(event.startMs)} ms). Press Ctrl-C to end monitoring without terminating the process.`;
    case 'exception': {
      const l = event.line;
      const what = `${(l.code ?? 'unknown').replace(/^0x/, '').toUpperCase()}${l.clrType !== undefined ? `.${l.clrType}` : ''}${l.clrMessage !== undefined ? ` ("${l.clrMessage}")` : l.description !== undefined && l.description !== l.code ? ` (${l.description})` : ''}`;
      // The HRESULT when SOS did not name the type (winedbg: read from the dump's record).
      const hresult =
        l.hresult !== undefined && l.clrType === undefined ? ` HRESULT ${l.hresult}` : '';
      const chance = l.chance === 'second' ? 'Unhandled' : 'Exception';
      const action =
        l.action === 'dumped'
          ? `dumped ${l.dumpPath ?? ''}${l.dumpVerified === false ? ' (NOT verified)' : l.dumpVerified === true ? ' (verified)' : ''}`
          : `skipped: ${l.reason ?? ''}${l.dumpError !== undefined ? ` (${l.dumpError})` : ''}`;
      return `[${clock(l.time)}] ${chance}: ${what}${hresult} -> ${action}; held ${Math.round(l.suspendedMs)} ms`;
    }
    case 'dump-progress':
      return null;
    case 'note':
      return `note: ${event.message}`;
    case 'ending':
      return `Ending (${event.reason}): detaching...`;
    case 'ended':
      return null;
  }
}

export function formatWatchSummary(s: WatchSummary): string {
  const lines = [
    `${s.exceptions} exception(s), ${s.dumps} dump(s) in ${(s.durationMs / 1000).toFixed(1)} s; target held ${Math.round(s.totalSuspendedMs)} ms in all (median ${s.medianSuspendedMs === null ? '-' : Math.round(s.medianSuspendedMs)} ms per stop)`,
    `ended: ${s.endReason}; detached: ${s.detached ? 'yes' : 'no'}; target ${s.targetAlive === null ? 'exited by itself' : s.targetAlive ? 'still running' : 'NOT found running'}`,
  ];
  const reasons = Object.entries(s.byReason).map(([k, v]) => `${k} ${v}`);
  if (reasons.length > 0) lines.push(`skipped: ${reasons.join(', ')}`);
  const sigs = Object.entries(s.bySignature).sort((a, b) => b[1] - a[1]);
  if (sigs.length > 0) {
    lines.push(`by signature (${s.signatureAlgorithm}, as analyze buckets):`);
    for (const [sig, n] of sigs.slice(0, 20)) lines.push(`  ${String(n).padStart(6)}  ${sig}`);
    if (sigs.length > 20) lines.push(`  … ${sigs.length - 20} more in summary.json`);
  }
  lines.push(`log: ${s.logPath}`);
  if (s.error !== undefined) lines.push(`error: ${s.error.message}`);
  return lines.join('\n');
}
