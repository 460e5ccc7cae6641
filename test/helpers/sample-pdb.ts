// The sample program the PDB reader tests and the symbol fuzz tier build with pdb-builder.ts:
// level1 (global, has a public symbol) and level2 (static: no public) in one object file, helper
// in a second. Shared so the hostile-file tests and the fuzz tier mutate the same program.
import type { BuiltProc, PdbSpec } from './pdb-builder.js';

/** The first object file's functions: level1 at 0x1000 (two lines), level2 at 0x1030. */
export const SAMPLE_MAIN_PROCS: BuiltProc[] = [
  {
    name: 'level1',
    rva: 0x1000,
    size: 0x30,
    lines: [
      [0, 10],
      [0x10, 11],
    ],
  },
  { name: 'level2', rva: 0x1030, size: 0x40, lines: [[0, 20]] },
];

/** The sample program's PDB spec; `mainProcs` replaces the first object file's functions. */
export function samplePdbSpec(mainProcs: BuiltProc[] = SAMPLE_MAIN_PROCS): PdbSpec {
  return {
    guid: '0123456789ABCDEF0123456789ABCDEF',
    age: 1,
    modules: [
      { name: 'main', procs: mainProcs },
      { name: 'other', procs: [{ name: 'helper', rva: 0x2000, size: 0x20, lines: [[0, 5]] }] },
    ],
    publics: [
      { name: 'level1', rva: 0x1000 },
      { name: 'helper', rva: 0x2000 },
    ],
  };
}
