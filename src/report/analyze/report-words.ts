// The words report.html uses for a record's internal markers: `notAvailable` entries are field
// paths (`frames.symbols`, `clrException`), which mean nothing to someone reading a crash report.
import type { AnalyzeEngineName, NotAvailable } from './analyze-record.js';

const MISSING: Record<NotAvailable, string> = {
  exception: 'the exception (the dump has no exception record)',
  frames: 'the stack of the faulting thread',
  'frames.symbols': 'function names (no symbols: frames are module + offset)',
  clrException: 'the managed (.NET) exception',
  heapSummary: 'the heap summary',
  analyze: 'the debugger’s own analysis (!analyze -v)',
  'modules.versions': 'module versions',
};

/** "function names (…), the managed (.NET) exception and …", or '' when nothing is missing. */
export function missingInWords(notAvailable: readonly NotAvailable[]): string {
  const words = notAvailable.map((n) => MISSING[n] ?? n);
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}

/** Why an engine leaves things out, said once per report. */
export function engineNote(engine: AnalyzeEngineName): string {
  switch (engine) {
    case 'builtin':
      return 'the builtin engine reads the dump file alone; cdb (or winedbg) adds symbols, !analyze and the .NET runtime’s view';
    case 'winedbg':
      return 'winedbg has no !analyze and no SOS';
    case 'cdb':
      return 'cdb could not answer these for this dump (see its raw output)';
  }
}
