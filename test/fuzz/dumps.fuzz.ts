// The fuzz tier (`npm run test:fuzz`, run by .ci/run): the committed example dumps, mutated with a
// seeded generator (bytes flipped, u32 fields set to hostile values, files cut short, directory
// entries pointed at the end of the file), then analysed as one batch with the builtin engine.
// Whatever the mutation: one record per input, every record under the record bound, no uncaught
// error, and the process's peak memory under the bound. Bounded in time by FUZZ_DUMPS (default
// 200) and the seed (FUZZ_SEED) makes a failure reproducible. Pure readers only: no Wine.
import { expect } from 'chai';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeDumps } from '../../src/workflows/analyze/analyze.js';
import { MAX_RECORD_BYTES } from '../../src/workflows/analyze/record-bounds.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { REPO_ROOT } from '../helpers/wine.js';
import { mutate, random } from '../helpers/dump-mutations.js';

const COUNT = Number(process.env.FUZZ_DUMPS ?? 200);
const SEED = Number(process.env.FUZZ_SEED ?? 22);
/** Peak RSS of the whole test process (mocha included), MB. */
const PEAK_MB = 600;
describe('fuzz: mutated example dumps through analyze', function () {
  this.timeout(Math.max(120_000, COUNT * 2_000));

  it(`${COUNT} mutated dumps (seed ${SEED}): one bounded record each, no crash, bounded memory`, async () => {
    const examples = join(REPO_ROOT, 'examples', 'dumps');
    const sources = readdirSync(examples)
      .filter((f) => f.endsWith('.dmp'))
      .map((f) => readFileSync(join(examples, f)));
    const next = random(SEED);
    const dir = makeTempDir('fuzz');
    const labels = new Map<string, string>();
    for (let i = 0; i < COUNT; i++) {
      const { bytes, label } = mutate(sources[i % sources.length]!, next);
      const name = `f${String(i).padStart(5, '0')}.dmp`;
      writeFileSync(join(dir, name), bytes);
      labels.set(name, label);
    }
    const out = join(makeTempDir('fuzz-out'), 'out');
    const result = await analyzeDumps({ inputs: [dir], outDir: out, engine: 'builtin' });
    expect(result.summary.dumps).to.equal(COUNT);
    const lines = readFileSync(join(out, 'records.ndjson'), 'utf8').trim().split('\n');
    expect(lines).to.have.length(COUNT);
    const files = new Set<string>();
    for (const line of lines) {
      const record = JSON.parse(line) as { file: string };
      const name = record.file.split('/').pop() ?? '';
      expect(Buffer.byteLength(line), `${name} (${labels.get(name)})`).to.be.at.most(
        MAX_RECORD_BYTES,
      );
      files.add(record.file);
    }
    expect(files.size).to.equal(COUNT);
    const peakMb = process.resourceUsage().maxRSS / 1024;
    expect(peakMb, 'peak RSS of the test process, MB').to.be.below(PEAK_MB);
  });
});
