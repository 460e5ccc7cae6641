// Library entry points check their options before anything runs, and say what is wrong with the
// project's UsageError (exit code 2 in the CLI; `code: 'USAGE'` for a library caller), instead of
// letting a missing `outDir` surface as Node's ERR_INVALID_ARG_TYPE from deep inside fs. The CLI
// checks its own flags earlier; these checks are for library callers (docs/library.md).
import { UsageError } from '../errors.js';

/** Checks the fields of one function's options object, naming the function in every message. */
export class OptionsCheck {
  private readonly options: Record<string, unknown>;

  constructor(
    private readonly fn: string,
    options: unknown,
  ) {
    if (options === null || typeof options !== 'object' || Array.isArray(options)) {
      throw new UsageError(`${fn}() takes an options object, got ${describe(options)}`);
    }
    this.options = options as Record<string, unknown>;
  }

  private fail(field: string, expected: string): never {
    const value = this.options[field];
    throw new UsageError(
      `${this.fn}(): \`${field}\` must be ${expected}, got ${value === undefined ? 'nothing' : describe(value)}`,
    );
  }

  private present(field: string): boolean {
    return this.options[field] !== undefined;
  }

  /** A non-empty string, required. */
  text(field: string): this {
    const value = this.options[field];
    if (typeof value !== 'string' || value.length === 0) this.fail(field, 'a non-empty string');
    return this;
  }

  optionalText(field: string): this {
    return this.present(field) ? this.text(field) : this;
  }

  /** An array of strings (required unless `optional`). */
  texts(field: string, optional = false): this {
    if (optional && !this.present(field)) return this;
    const value = this.options[field];
    if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
      this.fail(field, 'an array of strings');
    }
    return this;
  }

  /** A whole number ≥ `min`, when given. */
  optionalCount(field: string, min = 1): this {
    if (!this.present(field)) return this;
    const value = this.options[field];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
      this.fail(field, `a whole number ≥ ${min}`);
    }
    return this;
  }

  /** A positive number of milliseconds, when given. */
  optionalMs(field: string): this {
    if (!this.present(field)) return this;
    const value = this.options[field];
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
      this.fail(field, 'a positive number of milliseconds');
    }
    return this;
  }

  /** One of `choices`, required unless `optional`. */
  oneOf(field: string, choices: readonly string[], optional = false): this {
    if (optional && !this.present(field)) return this;
    const value = this.options[field];
    if (typeof value !== 'string' || !choices.includes(value)) {
      this.fail(field, `one of ${choices.map((c) => `'${c}'`).join(', ')}`);
    }
    return this;
  }

  optionalFunction(field: string): this {
    if (this.present(field) && typeof this.options[field] !== 'function') {
      this.fail(field, 'a function');
    }
    return this;
  }

  optionalBoolean(field: string): this {
    if (this.present(field) && typeof this.options[field] !== 'boolean') {
      this.fail(field, 'true or false');
    }
    return this;
  }

  optionalSignal(field = 'signal'): this {
    if (this.present(field) && !(this.options[field] instanceof AbortSignal)) {
      this.fail(field, 'an AbortSignal');
    }
    return this;
  }

  /** Any other shape check: `ok` false fails with `expected`. */
  must(field: string, ok: (value: unknown) => boolean, expected: string): this {
    if (!ok(this.options[field])) this.fail(field, expected);
    return this;
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string')
    return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return `${typeof value} ${String(value)}`;
  }
  return `a ${typeof value}`;
}
