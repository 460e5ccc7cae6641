// cdb's answer when a `!` command has no extension DLL to serve it: the Debugger Engine from the
// NuGet package carries dbgeng.dll without ext.dll/exts.dll, so `!heap` and `!address` are
// unknown there (recorded: test/fixtures/transcripts/dbgeng/dump-attach-noninvasive-ma.txt):
//   address is not extension gallery command
//   No export address found
// A reply like that holds no data, and reading it as an empty heap list gave a false all-clear.

// No export heap found
const NO_EXPORT_RE = /^No export (\S+) found\s*$/m;
// heap is not extension gallery command
const NOT_GALLERY_RE = /^(\S+) is not extension gallery command\s*$/m;

/** The debugger's own line when `reply` says its `!` command could not be run, else null. */
export function missingExtensionLine(reply: string): string | null {
  const line = NO_EXPORT_RE.exec(reply)?.[0] ?? NOT_GALLERY_RE.exec(reply)?.[0];
  return line === undefined ? null : line.trim();
}
