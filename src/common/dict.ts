// An object keyed by text that came from input (handle type names, signatures, module names,
// register names of a .sym file). A plain `{}` inherits Object.prototype: a handle type named
// `constructor`, `toString` or `__proto__` then reads an inherited function instead of a count
// (`byType[type] = (byType[type] ?? 0) + 1` made "function … 1"), or sets the prototype, and
// `inspect --json` failed the dump as INTERNAL (issue 30, item 12). A null-prototype object has
// only the keys put in it, and serialises as the same JSON. eslint.config.js refuses
// `const x: Record<…> = {}` in src so that new code gets this too.

/** An empty object without a prototype: every key, `__proto__` included, is an own data key. */
export function dict<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}
