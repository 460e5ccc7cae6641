// The signature lists as Socorro has them (prefix, irrelevant, sentinel; skip modules), read from
// Socorro-named files and added to the defaults, never replacing them (issue 34).
import { expect } from 'chai';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../../../src/errors.js';
import { createSigner, SIGNATURE_ALGORITHM } from '../../../src/report/analyze/signature.js';
import {
  applyListEdits,
  DEFAULT_SIGNATURE_LISTS,
  listsText,
  parseListFile,
  readListDir,
} from '../../../src/report/analyze/signature-lists.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

describe('signature lists (Socorro siglists, added to the defaults)', () => {
  it('reads one entry per line, comments and blank lines left out', () => {
    expect(
      parseListFile('# header\nRtlpCallVectoredHandlers   # why\n\n$$ cdb style\n!memcpy\n'),
    ).to.deep.equal(['RtlpCallVectoredHandlers', '!memcpy']);
  });

  it('adds entries to the defaults and takes out the ones written !ENTRY', () => {
    const lists = applyListEdits([
      {
        irrelevant: ['RtlpCallVectoredHandlers'],
        prefix: ['!memcpy'],
        skipModules: ['MyHook.dll'],
      },
    ]);
    expect(lists.irrelevant).to.include('RtlpCallVectoredHandlers');
    expect(lists.irrelevant).to.include.members([...DEFAULT_SIGNATURE_LISTS.irrelevant]);
    expect(lists.prefix).to.not.include('memcpy');
    expect(lists.skipModules).to.include.members(['ntdll', 'myhook']);
    const signer = createSigner({ lists: [{ skipModules: ['myhook'] }] });
    expect(signer.algorithm).to.match(/^cdbh-sig-3\+lists\.[0-9a-f]{8}$/);
    // The defaults given again are the defaults: the plain algorithm id.
    expect(createSigner({ lists: [{ prefix: ['memcpy'] }] }).algorithm).to.equal(
      SIGNATURE_ALGORITHM,
    );
  });

  it('reads a folder of Socorro-named files, and says so when it holds none', () => {
    const dir = makeTempDir('siglists');
    writeFileSync(join(dir, 'irrelevant_signature_re.txt'), 'app_assert_handler\n');
    writeFileSync(join(dir, 'signature_sentinels.txt'), 'report_crash\n');
    expect(readListDir(dir)).to.deep.equal({
      irrelevant: ['app_assert_handler'],
      sentinels: ['report_crash'],
    });
    const empty = join(dir, 'empty');
    mkdirSync(empty);
    expect(() => readListDir(empty)).to.throw(UsageError, /none of .*irrelevant_signature_re\.txt/);
  });

  it('refuses a pattern that is not a regular expression, naming its file', () => {
    expect(() => applyListEdits([{ prefix: ['memcpy('] }])).to.throw(
      UsageError,
      /prefix_signature_re\.txt: "memcpy\(" is not a regular expression/,
    );
  });

  it('prints every list under its file name', () => {
    const text = listsText(DEFAULT_SIGNATURE_LISTS);
    for (const file of [
      'skip_modules.txt',
      'irrelevant_signature_re.txt',
      'prefix_signature_re.txt',
      'signature_sentinels.txt',
    ]) {
      expect(text).to.include(`# ${file}\n`);
    }
    expect(text).to.include('\nKiUserExceptionDispatcher\n');
  });
});
