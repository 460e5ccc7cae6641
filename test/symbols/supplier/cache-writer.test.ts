// The stale-part sweep also clears the older writer's leftovers: `<file>.<pid>.<tag>.part`
// beside the target in the store layout (what a run killed mid-download left before parts moved
// to the partial folder). A dead writer's part and an old one go; a live run's part, the cached
// files and other names stay; once none is left, later runs skip the walk (a marker says so).
import { expect } from 'chai';
import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  OLD_PARTS_SWEPT,
  PARTIAL_DIR,
  pidAlive,
  removeStaleParts,
} from '../../../src/symbols/supplier/cache-writer.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

const ID = '0123456789ABCDEF0123456789ABCDEF1';

function deadPid(): number {
  let pid = 4_000_000;
  while (pidAlive(pid)) pid--;
  return pid;
}

describe('symbol cache: stale parts of the older naming scheme', () => {
  it('removes dead and old NAME.<pid>.<tag>.part files in the layout, keeps the rest', async () => {
    const store = makeTempDir('old-parts');
    const folder = join(store, 'app.pdb', ID);
    const twoTier = join(store, 'ap', 'app.dll', '5F3A1B2C9000');
    mkdirSync(folder, { recursive: true });
    mkdirSync(twoTier, { recursive: true });
    const dead = deadPid();
    const deadPart = join(folder, `app.pdb.${dead}.k3j2h1x9q.part`);
    const deadTwoTier = join(twoTier, `app.dll.${dead}.0a9z.part`);
    const oldPart = join(folder, `app.pdb.${process.pid}.old1.part`);
    const livePart = join(folder, `app.pdb.${process.ppid}.live1.part`);
    const cached = join(folder, 'app.pdb');
    const other = join(folder, 'notes.part');
    for (const path of [deadPart, deadTwoTier, oldPart, livePart, cached, other]) {
      writeFileSync(path, 'x');
    }
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    utimesSync(oldPart, twoHoursAgo, twoHoursAgo);

    expect(await removeStaleParts(store)).to.equal(3);
    expect(
      [deadPart, deadTwoTier, oldPart, livePart, cached, other].map((p) => existsSync(p)),
    ).to.deep.equal([false, false, false, true, true, true]);
    // A live old run's part is still there: the walk is not marked done.
    expect(existsSync(join(store, PARTIAL_DIR, OLD_PARTS_SWEPT))).to.equal(false);
  });

  it('marks a store with none left, and then no longer walks it', async () => {
    const store = makeTempDir('old-parts');
    const folder = join(store, 'app.pdb', ID);
    mkdirSync(folder, { recursive: true });
    const first = join(folder, `app.pdb.${deadPid()}.aa.part`);
    writeFileSync(first, 'x');
    expect(await removeStaleParts(store)).to.equal(1);
    expect(existsSync(join(store, PARTIAL_DIR, OLD_PARTS_SWEPT))).to.equal(true);
    // Nothing writes this scheme any more: a part planted after the marker is not looked for.
    const planted = join(folder, `app.pdb.${deadPid()}.bb.part`);
    writeFileSync(planted, 'x');
    expect(await removeStaleParts(store)).to.equal(0);
    expect(existsSync(planted)).to.equal(true);
  });
});
