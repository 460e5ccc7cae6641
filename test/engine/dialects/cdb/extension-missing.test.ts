// cdb's "no extension for this command" answer, read from the real Debugger Engine's recordings
// (test/fixtures/transcripts/dbgeng/, headers say how each was made).
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { missingExtensionLine } from '../../../../src/engine/dialects/cdb/extension-missing.js';
import { REPO_ROOT } from '../../../helpers/wine.js';

const transcript = (name: string) =>
  readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'transcripts', 'dbgeng', name), 'utf8');

/** The reply to `command` in a rendered transcript: the lines after its prompt line. */
function replyTo(text: string, command: string): string {
  const lines = text.split('\n');
  const at = lines.findIndex((l) => l.endsWith(`> ${command}`));
  expect(at, `${command} in the transcript`).to.be.greaterThan(-1);
  const end = lines.findIndex((l, i) => i > at && /^\d+:\d+> /.test(l));
  return lines.slice(at + 1, end).join('\n');
}

describe('engine/dialects/cdb/extension-missing', () => {
  it('!heap -s without exts.dll: the debugger line', () => {
    const reply = replyTo(transcript('analyze-clr-full-dump-sos.txt'), '!heap -s');
    expect(missingExtensionLine(reply)).to.equal('No export heap found');
  });

  it('!address -summary without exts.dll: the debugger line', () => {
    const reply = replyTo(transcript('dump-attach-noninvasive-ma.txt'), '!address -summary');
    expect(missingExtensionLine(reply)).to.equal('No export address found');
  });

  it('a heap summary is no missing extension', () => {
    expect(missingExtensionLine('LFH Key                   : 0x8bd4c0a2\n')).to.equal(null);
  });
});
