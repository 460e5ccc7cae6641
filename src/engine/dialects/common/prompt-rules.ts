// How a dialect recognises its prompt, from two patterns: the prompt ending the unfinished last
// line (a stop or a finished command) and the prompts leading a complete line (echoed input).
// Every dialect reads its prompt this way; only the patterns differ.
import type { Dialect } from './types.js';

export function promptRules(
  prompt: RegExp,
  leading: RegExp,
): Pick<Dialect, 'promptPattern' | 'isPrompt' | 'stripPrompt'> {
  return {
    promptPattern: prompt,
    isPrompt: (lastLine) => prompt.test(lastLine),
    stripPrompt: (line) => line.replace(leading, ''),
  };
}
