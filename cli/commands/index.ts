// The registry of subcommands. Add a command by writing cli/commands/<name>.ts and listing it here.
import { apply } from "./apply";
import type { Command } from "./command";
import { exportCommand } from "./export";
import { images } from "./images";
import { importCommand } from "./import";
import { setup } from "./setup";
import { validate } from "./validate";
import { worker } from "./worker";
import { lab } from "./lab";
import { render } from "./render";
import { user } from "./user";
import { rotateMasterKeyCommand } from "./rotate-master-key";
import { nodes, upgrade } from "./day2";

export const commands: Record<string, Command> = {
  apply,
  export: exportCommand,
  import: importCommand,
  images,
  setup,
  validate,
  worker,
  lab,
  render,
  user,
  "rotate-master-key": rotateMasterKeyCommand,
  nodes,
  upgrade,
};
