// Paths as bytes: valid UTF-8 stays text, anything else stays the Buffer, and the text, base64,
// key, join and order of each are exact (two bad names that read the same stay two).
import { expect } from 'chai';
import {
  baseNameOf,
  bytePathOf,
  compareBytePaths,
  joinBytePath,
  pathBytes64,
  pathFromRecord,
  pathKey,
  pathText,
} from '../../src/common/byte-path.js';

const latin1 = (text: string) => Buffer.from(text, 'latin1');

describe('byte paths', () => {
  it('keeps valid UTF-8 as text and anything else as bytes', () => {
    expect(bytePathOf(Buffer.from('/d/caf\u00e9.dmp'))).to.equal('/d/caf\u00e9.dmp');
    const bad = bytePathOf(latin1('/d/bad\xff\xfe.dmp'));
    expect(Buffer.isBuffer(bad)).to.equal(true);
    expect(pathText(bad)).to.equal('/d/bad\uFFFD\uFFFD.dmp');
    expect(pathBytes64(bad)).to.equal(latin1('/d/bad\xff\xfe.dmp').toString('base64'));
    expect(pathBytes64('/d/good.dmp')).to.equal(undefined);
  });

  it('two names that read the same as text keep different keys, and records give the bytes back', () => {
    const a = bytePathOf(latin1('/d/t\xff.dmp'));
    const b = bytePathOf(latin1('/d/t\xfe.dmp'));
    expect(pathText(a)).to.equal(pathText(b));
    expect(pathKey(a)).to.not.equal(pathKey(b));
    expect(compareBytePaths(a, b)).to.equal(1);
    const back = pathFromRecord({ file: pathText(a), fileBytes: pathBytes64(a) as string });
    expect(Buffer.from(back).equals(Buffer.from(a))).to.equal(true);
    expect(pathFromRecord({ file: '/d/good.dmp' })).to.equal('/d/good.dmp');
  });

  it('joins and splits in bytes when either side is bytes', () => {
    const dir = bytePathOf(latin1('/d\xff'));
    const joined = joinBytePath(dir, 'x.dmp');
    expect(Buffer.from(joined).equals(latin1('/d\xff/x.dmp'))).to.equal(true);
    expect(joinBytePath('/d', 'x.dmp')).to.equal('/d/x.dmp');
    expect(baseNameOf(joined)).to.equal('x.dmp');
    expect(Buffer.from(baseNameOf(latin1('/d/y\xff.dmp'))).equals(latin1('y\xff.dmp'))).to.equal(
      true,
    );
  });
});
