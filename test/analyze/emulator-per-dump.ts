// Runs the cdb emulator with a scenario chosen by the dump it is asked to open, so one analyze
// batch can hold a dump that triages cleanly, one that hangs cdb and one that crashes it: cdb is
// started as `… emulator-per-dump.ts -z DUMP …` and the scenario path is read from `DUMP.scenario`
// (a one-line text file next to the dump; analyze only picks up *.dmp files).
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const at = args.indexOf('-z');
const dump = at >= 0 ? args[at + 1] : undefined;
if (dump === undefined) throw new Error('emulator-per-dump: no -z DUMP argument');
const scenario = readFileSync(`${dump}.scenario`, 'utf8').trim();
process.argv = [process.argv[0] ?? 'node', process.argv[1] ?? '', '--scenario', scenario, ...args];
await import('../emulator/cdb-emulator.js');
