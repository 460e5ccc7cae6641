// The files of a key already on disk in a local store or folder: what the symbol locator takes
// before asking any server. Each candidate layout is tried under every case spelling
// (caseVariants): Windows stores are case-blind, this file system is not.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { caseVariants, type StoreCandidate } from '../index.js';
import type { Located } from './symbol-locator.js';

/** The candidates present under `root`, one hit per candidate (its first case spelling found). */
export function existingFiles(
  root: string,
  candidates: readonly StoreCandidate[],
  from: string,
): Located[] {
  const out: Located[] = [];
  for (const candidate of candidates) {
    if (candidate.format === 'cab') continue; // local cabinets are rare; servers send them
    for (const relative of caseVariants(candidate.relative)) {
      const path = join(root, relative);
      if (isFile(path)) {
        out.push({ path, format: candidate.format, from, downloaded: false });
        break;
      }
    }
  }
  return out;
}

/**
 * True for a regular file (after links); false for a folder, a missing path or no access. Asked
 * of every candidate spelling of every module a batch meets, and nearly all are missing (most
 * modules have no symbols): a missing path is told without an exception (`throwIfNoEntry`), and
 * without a round trip through the thread pool, as image-locator.ts's `existsSync` does. A
 * promise-returning stat made and threw an Error with its stack for each one.
 */
export function isFile(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isFile() === true;
  } catch {
    return false;
  }
}
