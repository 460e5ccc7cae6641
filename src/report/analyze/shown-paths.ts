// `analyze --relative-paths`: the dump paths a person reads (report.html, the summary text) shown
// relative to the input folder that holds them, so a report handed on does not carry the
// analyst's user folder (`/home/<name>/…`, `C:\Users\<name>\…`). The data files keep the raw
// path: records.ndjson and summary.json are read by programs, and --resume and --merge key dumps
// by their path. Pure: the roots come from the caller.
import { basename, relative, sep } from 'node:path';
import type { AnalyzeSummary } from './analyze-record.js';

/** How a dump path is shown to people. */
export type ShowPath = (file: string) => string;

/**
 * Paths under one of `roots` (absolute folders: the folders analyze was given) are shown relative
 * to the deepest such root (`crashes/app/1.dmp` under root `crashes` → `app/1.dmp`); any other
 * path (a file named on its own, a glob's match) by its file name.
 */
export function relativeToRoots(roots: readonly string[]): ShowPath {
  const prefixes = [...new Set(roots)]
    .map((root) => (root.endsWith(sep) ? root : `${root}${sep}`))
    .sort((a, b) => b.length - a.length);
  return (file) => {
    const root = prefixes.find((prefix) => file.startsWith(prefix));
    return root === undefined ? basename(file) : relative(root, file);
  };
}

/** The summary as a report shows it: every dump path through `show`. */
export function shownSummary(summary: AnalyzeSummary, show: ShowPath): AnalyzeSummary {
  return {
    ...summary,
    failures: summary.failures.map((f) => ({ ...f, file: show(f.file) })),
    quarantined: summary.quarantined.map((q) => ({ ...q, file: show(q.file) })),
    buckets: summary.buckets.map((b) => ({
      ...b,
      representative: show(b.representative),
      files: b.files.map(show),
    })),
  };
}
