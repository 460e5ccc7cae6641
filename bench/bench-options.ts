// Command-line options of the benches: `--name value` pairs after the script's path.

/** The value after `name` on the command line, else `fallback`. */
export function option(name: string, fallback: string): string {
  const args = process.argv.slice(2);
  const at = args.indexOf(name);
  return at >= 0 && args[at + 1] !== undefined ? args[at + 1]! : fallback;
}
