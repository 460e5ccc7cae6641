// `cdb-harness signature-lists` prints the lists in force, and `analyze --rebucket` applies lists
// given later to the records of a stored run (Socorro's reprocessing with new siglists).
import { expect } from 'chai';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../../helpers/cli.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { REPO_ROOT } from '../../helpers/wine.js';

const EXAMPLES = join(REPO_ROOT, 'examples');

function buckets(
  out: string,
): { file: string; bucket: { signature: string; algorithm: string } }[] {
  return readFileSync(join(out, 'records.ndjson'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as ReturnType<typeof buckets>[number]);
}

describe('signature-lists and analyze --rebucket with lists', function () {
  this.timeout(120_000);

  it('prints the defaults and their algorithm, as text, JSON and files to start from', async () => {
    const text = await runCli(['signature-lists']);
    expect(text.code, text.stderr).to.equal(0);
    expect(text.stdout).to.match(/^# algorithm cdbh-sig-3 \(the defaults\)$/m);
    expect(text.stdout).to.match(/^# signature_sentinels\.txt\n_purecall$/m);
    const json = await runCli(['signature-lists', '--json']);
    const parsed = JSON.parse(json.stdout) as { algorithm: string; lists: { prefix: string[] } };
    expect(parsed.algorithm).to.equal('cdbh-sig-3');
    expect(parsed.lists.prefix).to.include('memcpy');
    const dir = makeTempDir('siglists-write');
    const written = await runCli(['signature-lists', '--write', dir]);
    expect(written.code, written.stderr).to.equal(0);
    expect(readdirSync(dir).sort()).to.deep.equal([
      'irrelevant_signature_re.txt',
      'prefix_signature_re.txt',
      'signature_sentinels.txt',
      'skip_modules.txt',
    ]);
    // The defaults read back add nothing: the same algorithm id.
    const again = await runCli(['signature-lists', '--signature-lists', dir]);
    expect(again.stdout).to.match(/^# algorithm cdbh-sig-3$/m);
  });

  it('re-signs a stored run with more lists, no dump reopened', async () => {
    const root = makeTempDir('siglists-rebucket');
    const out = join(root, 'out');
    const store = join(EXAMPLES, 'symbols');
    const args = ['analyze', join(EXAMPLES, 'dumps', 'symcrash.dmp'), '--engine', 'builtin'];
    args.push('--symbol-path', store, '--image-path', store, '--out', out, '--no-progress');
    const first = await runCli(args);
    expect(first.code, first.stderr).to.equal(0);
    expect(buckets(out)[0]?.bucket.signature).to.equal(
      '0xc0000005 write | symcrash!store_value | symcrash!run_job | symcrash!main',
    );
    const lists = join(root, 'lists');
    const made = await runCli(['signature-lists', '--write', lists]);
    expect(made.code).to.equal(0);
    writeFileSync(join(lists, 'irrelevant_signature_re.txt'), 'store_.*\n', { flag: 'a' });
    const rebucket = await runCli(['analyze', '--rebucket', out, '--signature-lists', lists]);
    expect(rebucket.code, rebucket.stderr).to.equal(0);
    expect(rebucket.stderr).to.match(
      /rebucketed 1 records with cdbh-sig-3\+lists\.[0-9a-f]{8}: 1 changed/,
    );
    const [record] = buckets(out);
    // store_value looked through: run_job, main and the CRT's unnamed caller, so module
    // offsets for all (symcrash+0x170f, store_value's, is gone).
    expect(record?.bucket.signature).to.equal(
      '0xc0000005 write | symcrash+0x1690 | symcrash+0x15b9 | symcrash+0x13ae',
    );
    expect(record?.bucket.algorithm).to.match(/^cdbh-sig-3\+lists\./);
  });
});
