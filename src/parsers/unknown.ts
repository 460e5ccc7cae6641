// Output no parser reads: kept whole, so nothing the debugger printed is lost.
import { defineParser } from './descriptor.js';
import type { RecordBase } from './records.js';

export interface UnknownRecord extends RecordBase {
  raw: string;
}

export const unknownDescriptor = defineParser({
  kind: 'unknown',
  commands: [],
  parse: (text): UnknownRecord => ({ raw: text, warnings: [] }),
  summary: (record) => {
    const lines = record.raw.split('\n').filter((l) => l.trim().length > 0);
    return [`${lines.length} line(s) of output no parser reads`];
  },
});
