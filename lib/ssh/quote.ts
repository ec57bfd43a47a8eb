// The one quoting helper. Every command the executor sends is built from argument arrays through here;
// user data is never concatenated into shell text any other way.

/** Thrown when a value cannot be passed as a shell argument at all. */
export class QuoteError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "QuoteError";
  }
}

// Characters that need no quoting in any POSIX shell position (conservative set).
const SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * Quotes one argument for a POSIX shell: single quotes, with each embedded `'` written as `'\''`.
 * Inside single quotes nothing is special, so `$(…)`, backticks, globs, `~`, newlines stay literal.
 * NUL cannot be passed in an argv (C strings end there), so it is refused rather than truncated.
 */
export function quote(arg: string): string {
  if (arg.includes("\0")) {
    throw new QuoteError(
      `cannot pass an argument containing a NUL byte (at index ${arg.indexOf("\0")}): ` +
        "command-line arguments end at NUL; send such data as a file or on stdin instead",
    );
  }
  if (arg !== "" && SAFE.test(arg)) return arg;
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}

/** Joins an argument array into one shell command line: `["rm", "-f", "--", x]` → `rm -f -- 'x'`. */
export function shellCommand(argv: readonly string[]): string {
  if (argv.length === 0) throw new QuoteError("cannot build a command from an empty argument list");
  return argv.map(quote).join(" ");
}

/**
 * A fixed script run by `sh -c` with its data passed as positional parameters ($1, $2, …), so the script
 * text is a constant (golden-tested) and only quoted arguments vary.
 */
export function shellScript(script: string, args: readonly string[] = [], name = "bootdeck"): string[] {
  return ["sh", "-c", script, name, ...args];
}
