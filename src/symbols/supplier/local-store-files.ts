// The files of a key already on disk in a local store or folder: what the symbol locator takes
// before asking any server. Each candidate layout is tried under every case spelling
// (caseVariants): Windows stores are case-blind, this file system is not.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { caseVariants, type StoreCandidate } from '../index.js';
import type { Located } from './symbol-locator.js';

/** The candidates present under `root`, one hit per candidate (its first case spelling found). */
export async function existingFiles(
  root: string,
  candidates: readonly StoreCandidate[],
  from: string,
): Promise<Located[]> {
  const out: Located[] = [];
  for (const candidate of candidates) {
    if (candidate.format === 'cab') continue; // local cabinets are rare; servers send them
    for (const relative of caseVariants(candidate.relative)) {
      const path = join(root, relative);
      if (await isFile(path)) {
        out.push({ path, format: candidate.format, from, downloaded: false });
        break;
      }
    }
  }
  return out;
}

/** True for a regular file (after links); false for a folder, a missing path or no access. */
export async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}
