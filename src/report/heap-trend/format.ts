// Human formatting shared by report.md, report.html and the CLI's text output: the one place a
// number of report.json becomes text, so the three always print the same figure for it.
import { isAbsolute, relative } from 'node:path';

const KB_UNITS = ['KB', 'MB', 'GB', 'TB'] as const;

/**
 * `512 KB`, `12.5 MB`, `1.96 GB`, `150 MB` (binary multiples, like the KB columns of `!heap -s`).
 * Three significant digits at most; a value that rounds up to 1024 of one unit is printed in the
 * next (1023.9 KB is `1 MB`, never `1024 KB`).
 */
export function formatKb(kb: number): string {
  if (!Number.isFinite(kb)) return 'n/a';
  const sign = kb < 0 ? '-' : '';
  let value = Math.abs(kb);
  let unit = 0;
  while (unit < KB_UNITS.length - 1 && value >= 1024) {
    value /= 1024;
    unit++;
  }
  let text = formatNumber(value, decimalsFor(value));
  if (Number(text) >= 1024 && unit < KB_UNITS.length - 1) {
    value /= 1024;
    unit++;
    text = formatNumber(value, decimalsFor(value));
  }
  return text === '0' ? '0 KB' : `${sign}${text} ${KB_UNITS[unit]}`;
}

/** A growth rate with its sign: `+1.2 MB/min`, `-512 KB/min`, `0 KB/min`. */
export function formatRate(kbPerMin: number): string {
  const text = formatKb(kbPerMin);
  return `${kbPerMin > 0 && text !== '0 KB' ? '+' : ''}${text}/min`;
}

/** `45 s`, `12.5 min`, `100 min`, `3.2 h`, `2.1 days`. */
export function formatMinutes(minutes: number): string {
  if (!Number.isFinite(minutes)) return 'n/a';
  const abs = Math.abs(minutes);
  if (abs < 1) {
    const seconds = minutes * 60;
    // 59.99 s rounds to 60: say 1 min rather than "60 s".
    const text = formatNumber(seconds, decimalsFor(Math.abs(seconds)));
    if (Math.abs(Number(text)) < 60) return `${text} s`;
  }
  if (abs < 120) return `${formatNumber(minutes, decimalsFor(abs))} min`;
  if (abs < 48 * 60) return `${formatNumber(minutes / 60, decimalsFor(abs / 60))} h`;
  return `${formatNumber(minutes / (24 * 60), decimalsFor(abs / (24 * 60)))} days`;
}

/** `1.5 s`, `740 ms`: a duration given in milliseconds. */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return 'n/a';
  const text = formatNumber(ms, Math.abs(ms) < 10 ? 1 : 0);
  return Math.abs(Number(text)) < 1000 ? `${text} ms` : formatMinutes(ms / 60_000);
}

export function formatPercent(share: number): string {
  if (!Number.isFinite(share)) return 'n/a';
  return `${formatNumber(share * 100, 0)} %`;
}

/** `20,736`: an integer count with thousands separators (the same on every machine). */
export function formatCount(count: number): string {
  if (!Number.isFinite(count)) return 'n/a';
  const rounded = Math.round(count);
  const digits = String(Math.abs(rounded)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${rounded < 0 ? '-' : ''}${digits}`;
}

/**
 * `value` with at most `decimals` decimals, the zeros after the decimal point dropped (2.50 → 2.5,
 * 3.00 → 3) and never the integer part's (150 stays 150); no `-0`.
 */
export function formatNumber(value: number, decimals: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  let text = value.toFixed(decimals);
  if (text.includes('.')) text = text.replace(/0+$/, '').replace(/\.$/, '');
  return /^-0(?:\.0*)?$/.test(text) ? '0' : text;
}

/** Three significant digits for values from 1 up; two decimals below. */
function decimalsFor(abs: number): number {
  return abs >= 100 ? 0 : abs >= 10 ? 1 : 2;
}

/**
 * A threshold dump's path as report.md and report.html show it: relative to the report's own
 * folder when it lies under it (the run writes its dumps to OUT/dumps, beside the report), so a
 * report handed on carries neither the analyst's user folder nor a path that breaks when the
 * folder moves; report.json keeps the whole path. Any other path is shown as it is.
 */
export function dumpPathShown(path: string, reportDir: string | undefined): string {
  if (reportDir === undefined) return path;
  const shown = relative(reportDir, path);
  return shown === '' || shown.startsWith('..') || isAbsolute(shown) ? path : shown;
}
