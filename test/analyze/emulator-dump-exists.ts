// Runs the cdb emulator on one scenario, but only when the dump cdb is asked to open (`-z DUMP`)
// exists, as real cdb does: otherwise it exits 1 with cdb's complaint. For the test of dumps whose
// names are not valid UTF-8, which reach a debugger through a link with a plain name.
//   node --import tsx emulator-dump-exists.ts SCENARIO -z DUMP …
import { existsSync } from 'node:fs';

const [scenario, ...args] = process.argv.slice(2);
const at = args.indexOf('-z');
const dump = at >= 0 ? args[at + 1] : undefined;
if (scenario === undefined || dump === undefined) {
  throw new Error('emulator-dump-exists: SCENARIO -z DUMP');
}
if (!existsSync(dump)) {
  process.stderr.write(`Could not open dump file [${dump}], Win32 error 0n2\n`);
  process.exit(1);
}
process.argv = [process.argv[0] ?? 'node', process.argv[1] ?? '', '--scenario', scenario, ...args];
await import('../emulator/cdb-emulator.js');
