// heap-trend --from-dumps' folder scan reads names as bytes: a dump whose name is not valid UTF-8
// is read (not "ENOENT"), and the report's input says its exact bytes beside the text name.
import { expect } from 'chai';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { readDumpSeries } from '../../../src/workflows/heap-trend/dump-series.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { REPO_ROOT } from '../../helpers/wine.js';

describe('heap-trend --from-dumps: names that are not valid UTF-8', function () {
  before(function () {
    if (process.platform !== 'linux') this.skip();
  });

  it('reads such a dump from a folder and reports it with its bytes', async () => {
    const dir = makeTempDir('series-bytes');
    const name = Buffer.concat([Buffer.from(`${dir}/`), Buffer.from('bad\xff\xfe.dmp', 'latin1')]);
    copyFileSync(join(REPO_ROOT, 'examples', 'dumps', 'av-write-a.dmp'), name);
    const series = await readDumpSeries([dir]);
    expect(series.inputs).to.have.length(1);
    const [input] = series.inputs;
    expect(input?.fileBytes).to.equal(name.toString('base64'));
    expect(input?.file).to.equal(name.toString('utf8'));
    // Read: used as a sample, or refused for what the dump lacks, never "no such file".
    expect(input?.error ?? '').to.not.match(/ENOENT|no such file/);
    expect(input?.used === true || /MemoryInfoList/.test(input?.error ?? '')).to.equal(true);
  });
});
