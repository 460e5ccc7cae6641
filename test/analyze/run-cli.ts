// The CLI from source, as a child process (the bin runs the compiled dist/): for tests that need
// real signals and exit codes.
import { main } from '../../src/cli/main.js';

process.exitCode = await main(process.argv);
