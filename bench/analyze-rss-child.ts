// Child of bench/analyze-throughput.ts: analyses one folder with the builtin engine and prints its
// own peak RSS, so each measurement starts from a fresh process.
//   node --import tsx bench/analyze-rss-child.ts INPUT_DIR OUT_DIR
import { analyzeDumps } from '../src/workflows/analyze/analyze.js';

const [input, out] = process.argv.slice(2);
if (input === undefined || out === undefined)
  throw new Error('usage: analyze-rss-child.ts INPUT OUT');
const result = await analyzeDumps({ inputs: [input], outDir: out, engine: 'builtin' });
console.log(`dumps=${result.summary.dumps} maxRssKb=${process.resourceUsage().maxRSS}`);
