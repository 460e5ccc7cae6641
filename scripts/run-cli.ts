// Runs the CLI from source (no build): `node --import tsx scripts/run-cli.ts <subcommand> …`.
// Tests and development use this; users run bin/cdb-harness.js, which loads the built dist/.
import { main } from '../src/cli/main.js';

process.exitCode = await main(process.argv);
