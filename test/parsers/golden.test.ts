// Every transcript in test/fixtures/transcripts goes through parseText (with its header's command as
// the command of a body without prompt lines); the envelope must match parseEnvelope's schema
// and the checked-in golden under test/golden/<dir>/<file>.json.
// Regenerate after a deliberate change: UPDATE_GOLDEN=1 npx mocha test/parsers/golden.test.ts
import { expect } from 'chai';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseText } from '../../src/parsers/parse-text.js';
import { validate } from '../../src/report/schemas.js';
import { listTranscripts, REPO_ROOT } from './transcripts.js';

const GOLDEN_DIR = join(REPO_ROOT, 'test', 'golden');
const UPDATE = process.env['UPDATE_GOLDEN'] === '1';

describe('golden: every transcript', () => {
  const transcripts = listTranscripts();

  it('finds the transcript corpus', () => {
    expect(transcripts.length).to.be.greaterThan(50);
  });

  for (const t of transcripts) {
    it(t.name, () => {
      const envelope = parseText(t.body, { command: t.command });
      const check = validate('parseEnvelope', envelope);
      expect(check.errors, 'schema errors').to.deep.equal([]);
      const golden = join(GOLDEN_DIR, t.name.replace(/\.txt$/, '.json'));
      const actual = `${JSON.stringify(envelope, null, 2)}\n`;
      if (UPDATE || !existsSync(golden)) {
        mkdirSync(dirname(golden), { recursive: true });
        writeFileSync(golden, actual);
        if (!UPDATE) expect.fail(`golden ${golden} was missing and has been written; check it`);
        return;
      }
      expect(JSON.parse(actual)).to.deep.equal(JSON.parse(readFileSync(golden, 'utf8')));
    });
  }
});
