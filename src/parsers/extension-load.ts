// `.loadby X Y` and `.load X`: cdb prints nothing when the extension loads, and one error line
// when it does not (transcript loadby-sos-clr-and-mscorwks-unable-to-find-module).
import { defineParser } from './descriptor.js';
import { dropEcho } from './prompt.js';
import { splitLines } from './text.js';
import type { RecordBase } from './records.js';

export interface ExtensionLoadRecord extends RecordBase {
  success: boolean;
  error?: string;
}

export function parseExtensionLoad(text: string): ExtensionLoadRecord {
  const lines = dropEcho(splitLines(text))
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  if (lines.length === 0) return { success: true, warnings: [] };
  // Any output is an error message: `Unable to find module 'clr'`,
  // `The call to LoadLibrary(sos) failed, Win32 error 0n2`, …
  return { success: false, error: lines.join('\n'), warnings: [] };
}

export const extensionLoadDescriptor = defineParser({
  kind: 'extensionLoad',
  commands: [
    // .loadby sos clr, .load C:\\sos\\sos.dll
    /^\.load(?:by)?(?:\s|$)/i,
  ],
  parse: (text) => parseExtensionLoad(text),
  summary: (record) => [record.success ? 'loaded' : `failed: ${record.error ?? ''}`],
});
