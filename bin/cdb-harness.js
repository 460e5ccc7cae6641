#!/usr/bin/env node
// Thin launcher: the CLI is compiled to dist/ by `npm run build` (run by `prepare` on npm ci/install).
import { main } from '../dist/src/cli/main.js';

process.exitCode = await main(process.argv);
