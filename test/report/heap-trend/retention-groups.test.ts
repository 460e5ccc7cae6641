// Co-growing types grouped by what holds them, from real gcroot replies of the sessions program
// (dotnet-dump 10): the Byte[] payloads and the SessionState objects are held by one dictionary,
// so the report says it once, with each type's growth in objects, and SOS's static label marked as
// its guess (the recorded label, NumberFormatInfo.<InvariantInfo>k__BackingField, is not the field
// that holds the dictionary: Sessions.Live, test/targets/dotnet/Sessions.cs).
import { expect } from 'chai';
import { parseGcRoot } from '../../../src/parsers/gc-root.js';
import { groupRetention } from '../../../src/report/heap-trend/retention-chains.js';
import { retentionGroups } from '../../../src/report/heap-trend/retention-groups.js';
import type { HeapTrendSecondary, HeapTrendSeries } from '../../../src/report/heap-trend/types.js';
import { transcriptBody } from '../../parsers/heap-sos-umdh-transcripts.js';

const DICTIONARY =
  'System.Collections.Generic.Dictionary<System.Guid, CdbHarness.Targets.SessionState>';
const LABEL =
  'static variable: System.Globalization.NumberFormatInfo.<InvariantInfo>k__BackingField';

function series(id: string, countFirst: number, countLast: number): HeapTrendSeries {
  return {
    id,
    samples: 5,
    firstKb: 1,
    lastKb: 2,
    growthKb: 1,
    slopeKbPerMin: 1,
    r2: 1,
    growthShare: 1,
    suspect: true,
    rank: 1,
    reasons: [],
    firstSampleIndex: 0,
    lastSampleIndex: 4,
    gaps: 0,
    appeared: false,
    disappeared: false,
    maxKb: 2,
    countFirst,
    countLast,
  };
}

describe('retention groups (co-growing types, one holder)', () => {
  const payload = parseGcRoot(
    transcriptBody('dotnet-dump/gcroot-payload-byte-array-linux-net10.txt'),
  );
  const session = parseGcRoot(transcriptBody('dotnet-dump/gcroot-session-state-linux-net10.txt'));
  const entries = [
    { type: 'System.Byte[]', sampled: 1, roots: groupRetention([payload]) },
    { type: 'CdbHarness.Targets.SessionState', sampled: 1, roots: groupRetention([session]) },
  ];

  it('names the holder and marks SOS’s static label as its guess', () => {
    const top = entries[0]?.roots[0];
    expect(top).to.include({ holder: DICTIONARY, staticLabel: LABEL, labelChecked: false });
    expect(top?.chain.join(' ← ')).to.include(`(${LABEL}: SOS's guess, not checked)`);
  });

  it('groups the types held the same way and says their growth once', () => {
    const types: HeapTrendSecondary = {
      kind: 'clr-type',
      series: [
        series('System.Byte[]', 100, 20_836),
        series('CdbHarness.Targets.SessionState', 100, 20_836),
      ],
      seriesCount: 2,
      rule: '',
      total: series('total', 0, 0),
    };
    const groups = retentionGroups(entries, types);
    expect(groups).to.have.length(1);
    expect(groups[0]?.text).to.equal(
      `System.Byte[] and CdbHarness.Targets.SessionState grew by 20,736 objects each, held by ${DICTIONARY} (${LABEL}: SOS's guess, not checked).`,
    );
  });
});
