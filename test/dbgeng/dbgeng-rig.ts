// The real Debugger Engine rig as the test:dbgeng tier sees it: build/dbgeng/cdb, the wrapper
// scripts/setup-dbgeng.sh writes around Microsoft's dbgeng.dll (NuGet) and the test console host.
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers/wine.js';

export const DBGENG_CDB = join(REPO_ROOT, 'build', 'dbgeng', 'cdb');

/** Fails loudly when the tier runs without its rig: the tier only runs after setup succeeded. */
export function requireDbgengRig(): void {
  if (!existsSync(DBGENG_CDB) || !existsSync(join(REPO_ROOT, 'build', 'dbgeng', 'dbgeng.dll'))) {
    throw new Error(
      `${DBGENG_CDB} is missing: run bash scripts/setup-dbgeng.sh first (it restores the Debugger Engine from NuGet)`,
    );
  }
}

/**
 * Where a session's transcript goes: CDB_HARNESS_DBGENG_RECORD=<dir> keeps each one as
 * <dir>/<name>.jsonl (how test/fixtures/transcripts/dbgeng/ was captured); otherwise a temp dir.
 */
export function recordPathFor(name: string): string {
  const keep = process.env['CDB_HARNESS_DBGENG_RECORD'];
  const dir =
    keep !== undefined && keep !== '' ? keep : mkdtempSync(join(tmpdir(), 'cdbh-dbgeng-rec-'));
  mkdirSync(dir, { recursive: true });
  return join(dir, `${name}.jsonl`);
}
