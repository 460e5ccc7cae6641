// The one grammar for durations and sizes, used by every command that asks for a time or a size
// (docs/cli.md lists them):
//   durations  `90` (bare numbers are seconds, like ProcDump's -s), `500ms`, `30s`, `5m`, `1.5h`
//   sizes      `100MB`, `2GB`, `512KB`, `1.5G` (bare numbers are MB, like ProcDump's -m)
// Sizes are returned in KB because every heap number in the reports is in KB. Binary multiples:
// 1 MB = 1024 KB, as `!heap -s` and Task Manager count.
import { UsageError } from './errors.js';

const DURATION_UNITS: Record<string, number> = {
  ms: 1,
  s: 1000,
  sec: 1000,
  m: 60_000,
  min: 60_000,
  h: 3_600_000,
};

// 5s, 500ms, 1.5m, 2h, 30
const DURATION_RE = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|sec|m|min|h)?\s*$/i;

export const DURATION_EXAMPLES = '90, 500ms, 30s, 5m, 1h';
export const SIZE_EXAMPLES = '512KB, 100MB, 2GB (a bare number is MB)';

/** Milliseconds; throws UsageError on anything else. */
export function parseDuration(text: string, what = 'duration'): number {
  const match = DURATION_RE.exec(text);
  if (!match) {
    throw new UsageError(
      `${what}: "${text}" is not a duration (examples: ${DURATION_EXAMPLES}; a bare number is seconds)`,
    );
  }
  const value = Number(match[1]);
  const unit = DURATION_UNITS[(match[2] ?? 's').toLowerCase()] ?? 1000;
  const ms = Math.round(value * unit);
  if (!(ms > 0)) throw new UsageError(`${what}: "${text}" must be greater than zero`);
  return ms;
}

const SIZE_UNITS: Record<string, number> = {
  k: 1,
  kb: 1,
  m: 1024,
  mb: 1024,
  g: 1024 * 1024,
  gb: 1024 * 1024,
  t: 1024 * 1024 * 1024,
  tb: 1024 * 1024 * 1024,
};

// 100MB, 2GB, 512KB, 1.5G, 300
const SIZE_RE = /^\s*(\d+(?:\.\d+)?)\s*(k|kb|m|mb|g|gb|t|tb)?\s*$/i;

/** Kilobytes; a bare number is megabytes. Throws UsageError on anything else. */
export function parseSizeKb(text: string, what = 'size'): number {
  const match = SIZE_RE.exec(text);
  if (!match) throw new UsageError(`${what}: "${text}" is not a size (examples: ${SIZE_EXAMPLES})`);
  const value = Number(match[1]);
  const unit = SIZE_UNITS[(match[2] ?? 'mb').toLowerCase()] ?? 1024;
  const kb = Math.round(value * unit);
  if (!(kb > 0)) throw new UsageError(`${what}: "${text}" must be greater than zero`);
  return kb;
}

/** `100MB,200MB,…` → ascending, de-duplicated KB steps. */
export function parseSizeList(text: string, what = 'size list'): number[] {
  const parts = text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  if (parts.length === 0) throw new UsageError(`${what}: empty list`);
  return [...new Set(parts.map((part) => parseSizeKb(part, what)))].sort((a, b) => a - b);
}

// 3, 12
const COUNT_RE = /^\d+$/;

/** A whole number ≥ `min`; throws UsageError otherwise. */
export function parseCount(text: string, what = 'count', min = 0): number {
  const n = Number(text.trim());
  if (!COUNT_RE.test(text.trim()) || n < min) {
    throw new UsageError(`${what} must be a whole number >= ${min}, got ${JSON.stringify(text)}`);
  }
  return n;
}

// 50, 12.5, 100
const PERCENT_RE = /^\s*(\d+(?:\.\d+)?)\s*%?\s*$/;

/** A CPU percentage, 0 < p <= 100 (ProcDump -c/-cl); throws UsageError otherwise. */
export function parsePercent(text: string, what = 'percent'): number {
  const match = PERCENT_RE.exec(text);
  const value = Number(match?.[1]);
  if (match === null || !(value > 0) || value > 100) {
    throw new UsageError(
      `${what} must be a percentage above 0 and at most 100 (of all cores, or of one core with -u), got ${JSON.stringify(text)}`,
    );
  }
  return value;
}
