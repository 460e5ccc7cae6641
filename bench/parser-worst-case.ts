// Parser time on one-megabyte lines shaped to make a regex backtrack (the shapes of
// test/parsers/adversarial-lines.ts, which the robustness tests only check for valid records),
// side by side with the same parser on one megabyte of ordinary debugger output (the repository's
// transcripts repeated), in the same process. A ratio near 1 means no shape is worse than normal
// text; a regex that backtracks shows as a ratio in the hundreds.
//
//   node --import tsx bench/parser-worst-case.ts
import { PARSERS } from '../src/parsers/registry.js';
import { ADVERSARIAL_EVENT_LINES, ADVERSARIAL_LINES } from '../test/parsers/adversarial-lines.js';
import { listTranscripts } from '../test/parsers/transcripts.js';

const MB = 1 << 20;
const SHAPES = [...ADVERSARIAL_LINES, ...ADVERSARIAL_EVENT_LINES];

function ordinaryText(): string {
  const bodies = listTranscripts().map((t) => t.body);
  let text = '';
  while (text.length < MB) text += bodies.join('\n');
  return text.slice(0, MB);
}

/** Best of three, in milliseconds (the first run also warms the regexes up). */
function timeMs(run: () => unknown): number {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    run();
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

const ordinary = ordinaryText();
console.log(`parser worst case: ${SHAPES.length} adversarial 1 MB lines vs 1 MB of transcripts`);
console.log(
  `${'kind'.padEnd(16)} ${'ordinary ms'.padStart(11)} ${'worst ms'.padStart(9)} ${'ratio'.padStart(7)}  worst shape`,
);
let worstRatio = 0;
for (const parser of PARSERS) {
  if (parser.kind === 'unknown') continue; // keeps the text whole: nothing to time
  const base = timeMs(() => parser.parse(ordinary, null));
  let worst = 0;
  let worstName = '';
  for (const [name, line] of SHAPES) {
    const ms = timeMs(() => parser.parse(line, null));
    if (ms > worst) {
      worst = ms;
      worstName = name;
    }
  }
  const ratio = worst / Math.max(base, 0.01);
  worstRatio = Math.max(worstRatio, ratio);
  console.log(
    `${parser.kind.padEnd(16)} ${base.toFixed(1).padStart(11)} ${worst.toFixed(1).padStart(9)} ${ratio.toFixed(1).padStart(7)}  ${worstName}`,
  );
}
console.log(`worst ratio (adversarial / ordinary): ${worstRatio.toFixed(1)}`);
