// One-megabyte lines shaped to make a careless regex backtrack for ever: runs that a quantifier
// may split many ways, with a last character that makes the match fail only at the very end.
// The robustness tests check that every parser still returns a schema-valid record for each (a
// catastrophic backtrack shows as a test timeout); bench/parser-worst-case.ts times them.

const MB = 1 << 20;

const fill = (unit: string, prefix = '', suffix = 'x'): string =>
  prefix + unit.repeat(Math.ceil((MB - prefix.length) / unit.length)).slice(0, MB) + suffix;

/** Shapes aimed at the heap, SOS and umdh parsers' regexes. */
export const ADVERSARIAL_LINES: readonly (readonly [string, string])[] = [
  ['one hex run', fill('0')],
  ['spaces then a letter', fill(' ')],
  ['digits separated by single spaces', fill('1 ', '00310000 00001002 ')],
  ['digits separated by runs of spaces', fill('7   ', '0000021CB3460000  ')],
  ['umdh header lookalike', fill('0 ', '+ 2a98c90 ( ')],
  ['umdh count lookalike', fill(' ', '+ 15cf4 ( 15cf4 - 0)')],
  ['source bracket opened many times', fill(' [a @ 1', '00aff1f4 0113089a X')],
  ['inner exception commas', fill(', Use !PrintException a', 'InnerException:   T')],
  ['size pair repeats', fill('  0x1(1)', '0000021CB3460000  0000021CB3461000  0000021CB3464FF0')],
  ['address summary lookalike', fill('a 1 0`1 ( 1.0 MB) ', '--- Usage Summary --- RgnCount\n')],
  ['variable lookalike', fill('a (', '        ')],
  ['noise marker repeats', fill('*** WARNING: ', '0000003a9acfef00 00007ffce4f7063c ')],
];

/** Shapes aimed at the event, stack, module and startup parsers' regexes. */
export const ADVERSARIAL_EVENT_LINES: readonly (readonly [string, string])[] = [
  ['banner prefix repeats', '(5fc4.6320): '.repeat(80_000)],
  ['a million spaces then a letter', ' '.repeat(1_000_000) + 'x'],
  ['frame address pairs', '00000000`00000000 '.repeat(55_000)],
  ['last event code repeats', 'Last event: ' + 'a - code '.repeat(110_000)],
  ['winedbg exception repeats', 'First chance exception: ' + ' in 64-bit code ('.repeat(55_000)],
  ['open parens', 'ExceptionAddress: ' + '('.repeat(1_000_000)],
  ['a million letters then a colon', 'A'.repeat(1_000_000) + ':'],
];
