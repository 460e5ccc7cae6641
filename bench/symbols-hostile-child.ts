// Child of bench/symbols-hostile.ts: one `analyze --engine builtin` run with a symbol path, in a
// fresh process so its peak RSS is its own; prints it with what the records said.
//   node --import tsx bench/symbols-hostile-child.ts INPUT OUT SYMBOL_PATH MAX_BYTES TIMEOUT_MS JOBS
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeDumps } from '../src/workflows/analyze/analyze.js';

const [input, out, symbolPath, maxBytes, timeoutMs, jobs] = process.argv.slice(2);
if (input === undefined || out === undefined || symbolPath === undefined) {
  throw new Error(
    'usage: symbols-hostile-child.ts INPUT OUT SYMBOL_PATH MAX_BYTES TIMEOUT_MS JOBS',
  );
}
const down: string[] = [];
const result = await analyzeDumps({
  inputs: [input],
  outDir: out,
  engine: 'builtin',
  symbolPath,
  env: {},
  symbolMaxBytes: Number(maxBytes),
  symbolDownloadTimeoutMs: Number(timeoutMs),
  jobs: Number(jobs),
  onEvent: (event) => {
    if (event.type === 'symbol-server-down') down.push(event.server);
  },
});
const reasons = new Set<string>();
for (const line of readFileSync(join(out, 'records.ndjson'), 'utf8').trim().split('\n')) {
  const record = JSON.parse(line) as { symbols?: { modules: { reason?: string }[] } };
  for (const m of record.symbols?.modules ?? []) {
    if (m.reason !== undefined) reasons.add(m.reason.replace(/http:\/\/127\.0\.0\.1:\d+/g, 'URL'));
  }
}
console.log(
  JSON.stringify({
    dumps: result.summary.dumps,
    maxRssKb: process.resourceUsage().maxRSS,
    serversDown: down.length,
    reason: [...reasons][0]?.slice(0, 240),
  }),
);
