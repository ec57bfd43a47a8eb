// bootdeck — the command line. Each subcommand lives in cli/commands/<name>.ts and exports `run(argv)`
// returning the process exit code; this file only dispatches, loading the command it runs (and nothing
// else). bin/bootdeck runs it compiled (scripts/build-cli.mjs), not transpiled at each start.
import { commands } from "./commands";

// The summaries line up one column past the longest command name.
const width = Math.max(...Object.keys(commands).map((n) => n.length)) + 2;
const usage = `bootdeck — bootstrap self-hosted Kubernetes clusters

Usage: bootdeck <command> [options]

Commands:
${Object.entries(commands)
  .map(([name, c]) => `  ${name.padEnd(width)}${c.summary}`)
  .join("\n")}

Run "bootdeck <command> --help" for a command's options.`;

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === "--help" || name === "-h" || name === "help") {
    console.log(usage);
    return name ? 0 : 2;
  }
  const command = commands[name];
  if (!command) {
    console.error(`bootdeck: unknown command "${name}"\n\n${usage}`);
    return 2;
  }
  return (await command.load()).run(rest);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`bootdeck: ${err instanceof Error ? err.message : String(err)}`);
    if (process.env.BOOTDECK_DEBUG) console.error(err);
    process.exit(1);
  },
);
