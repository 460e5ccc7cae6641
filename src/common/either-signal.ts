// One AbortSignal that aborts when either of two does, where one or both may be absent: the
// session's and a call's (debugger-session.ts), a caller's and a download deadline
// (symbol-locator.ts, url-dump.ts). AbortSignal.any only when both are there.

/** `a` and `b` as one signal: undefined when neither is given. */
export function eitherSignal(a: AbortSignal | undefined, b: AbortSignal): AbortSignal;
export function eitherSignal(
  a: AbortSignal | undefined,
  b: AbortSignal | undefined,
): AbortSignal | undefined;
export function eitherSignal(
  a: AbortSignal | undefined,
  b: AbortSignal | undefined,
): AbortSignal | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return AbortSignal.any([a, b]);
}
