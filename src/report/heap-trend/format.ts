// Human formatting shared by report.md, report.html and the CLI's text output.

/** `512 KB`, `12.5 MB`, `1.96 GB` (binary multiples, like the KB columns of `!heap -s`). */
export function formatKb(kb: number): string {
  const sign = kb < 0 ? '-' : '';
  const abs = Math.abs(kb);
  if (abs >= 1024 * 1024) return `${sign}${trim(abs / (1024 * 1024))} GB`;
  if (abs >= 1024) return `${sign}${trim(abs / 1024)} MB`;
  return `${sign}${trim(abs)} KB`;
}

/** A growth rate with its sign: `+1.2 MB/min`. */
export function formatRate(kbPerMin: number): string {
  return `${kbPerMin > 0 ? '+' : ''}${formatKb(kbPerMin)}/min`;
}

/** `45 s`, `12.5 min`, `3.2 h`, `2.1 days`. */
export function formatMinutes(minutes: number): string {
  if (minutes < 1) return `${trim(minutes * 60)} s`;
  if (minutes < 120) return `${trim(minutes)} min`;
  if (minutes < 48 * 60) return `${trim(minutes / 60)} h`;
  return `${trim(minutes / (24 * 60))} days`;
}

export function formatPercent(share: number): string {
  return `${Math.round(share * 100)} %`;
}

function trim(value: number): string {
  if (Number.isInteger(value)) return String(value);
  return value.toFixed(value >= 100 ? 0 : value >= 10 ? 1 : 2).replace(/\.?0+$/, '');
}
