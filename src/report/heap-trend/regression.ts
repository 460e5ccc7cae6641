// Least-squares line fit and the small statistics every trend uses (heap series and umdh stacks).
// Pure and allocation-free over plain number arrays, because the analysis bench feeds it
// 10,000 samples × 50 heaps.

export interface LineFit {
  /** dy/dx. 0 when fewer than 2 distinct x values. */
  slope: number;
  intercept: number;
  /**
   * Coefficient of determination. A series with no variance at all (flat) has nothing to explain:
   * R² is reported as 0 there, so a flat heap can never pass an "R² ≥ 0.8" rule by accident.
   */
  r2: number;
}

/** Fits y = intercept + slope·x over the first `n` pairs (centred sums: stable for large x). */
export function fitLine(xs: ArrayLike<number>, ys: ArrayLike<number>, n = xs.length): LineFit {
  if (n <= 0) return { slope: 0, intercept: 0, r2: 0 };
  let sx = 0;
  let sy = 0;
  for (let i = 0; i < n; i++) {
    sx += xs[i] ?? 0;
    sy += ys[i] ?? 0;
  }
  const mx = sx / n;
  const my = sy / n;
  let sxx = 0;
  let sxy = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = (xs[i] ?? 0) - mx;
    const dy = (ys[i] ?? 0) - my;
    sxx += dx * dx;
    sxy += dx * dy;
    syy += dy * dy;
  }
  if (sxx === 0) return { slope: 0, intercept: my, r2: 0 };
  const slope = sxy / sxx;
  const intercept = my - slope * mx;
  // R² = explained / total = (sxy²/sxx) / syy.
  const r2 = syy === 0 ? 0 : Math.min(1, (sxy * sxy) / (sxx * syy));
  return { slope, intercept, r2 };
}

/** Share (0..1) of consecutive pairs in which y went up; 0 with fewer than 2 values. */
export function growthShare(ys: ArrayLike<number>, n = ys.length): number {
  if (n < 2) return 0;
  let grew = 0;
  for (let i = 1; i < n; i++) if ((ys[i] ?? 0) > (ys[i - 1] ?? 0)) grew++;
  return grew / (n - 1);
}

/** Rounds for JSON output: keeps reports readable and byte-stable across platforms. */
export function round(value: number, digits = 3): number {
  if (!Number.isFinite(value)) return value;
  const factor = 10 ** digits;
  const rounded = Math.round(value * factor) / factor;
  return Object.is(rounded, -0) ? 0 : rounded;
}
