import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readGcDump } from '../../../../src/engine/dialects/dotnet-gcdump/gcdump-file.js';
import {
  retentionPaths,
  rootText,
} from '../../../../src/engine/dialects/dotnet-gcdump/retention-paths.js';
import { typeHistogram } from '../../../../src/engine/dialects/dotnet-gcdump/type-histogram.js';
import { REPO_ROOT } from '../../../helpers/wine.js';

const DIR = join(REPO_ROOT, 'test', 'fixtures', 'gcdump');
const DICTIONARY =
  'System.Collections.Generic.Dictionary<System.Guid,CdbHarness.Targets.SessionState>';

describe('dotnet-gcdump: what holds a type, from the graph', () => {
  it('names the static dictionary behind every session and payload (Sessions.cs: Live)', () => {
    const dump = readGcDump(readFileSync(join(DIR, 'sessions-3.gcdump')), 'sessions-3');
    const [sessions, payloads] = retentionPaths(dump, [
      'CdbHarness.Targets.SessionState',
      'System.Byte[]',
    ]);
    const live = `static field Live (a ${DICTIONARY})`;
    const sessionCount = typeHistogram(dump).find(
      (r) => r.name === 'CdbHarness.Targets.SessionState',
    )?.count;
    expect(sessions?.objects).to.equal(sessionCount);
    // Every session: held by the static, even though Run's stack holds the dictionary too.
    expect(sessions?.chains).to.deep.equal([
      {
        root: live,
        chain: [
          'CdbHarness.Targets.SessionState',
          'Entry<System.Guid,CdbHarness.Targets.SessionState>[]',
          DICTIONARY,
        ],
        count: sessionCount,
      },
    ]);
    const top = payloads?.chains[0];
    expect(top?.root).to.equal(live);
    expect(top?.chain.slice(0, 2)).to.deep.equal([
      'System.Byte[]',
      'CdbHarness.Targets.SessionState',
    ]);
    expect(top?.count).to.equal(sessionCount);
  });

  it('counts the objects no root reaches apart, and a type the graph lacks as none', () => {
    const dump = readGcDump(readFileSync(join(DIR, 'sessions-1.gcdump')), 'sessions-1');
    const [missing] = retentionPaths(dump, ['No.Such.Type']);
    expect(missing).to.deep.equal({ type: 'No.Such.Type', objects: 0, unreachable: 0, chains: [] });
  });

  it('says a static root in words, field name and field type (the class is not recorded)', () => {
    expect(rootText(`[static var ${DICTIONARY}.Live]`)).to.equal(
      `static field Live (a ${DICTIONARY})`,
    );
    expect(
      rootText('[static var System.Globalization.CultureData.<Invariant>k__BackingField]'),
    ).to.equal('static field <Invariant>k__BackingField (a System.Globalization.CultureData)');
    expect(rootText('[strong Handles]')).to.equal('strong Handles');
  });
});
