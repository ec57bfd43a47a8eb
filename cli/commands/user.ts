import { recordAudit } from "../../lib/audit/record";
import { roles, type Role } from "../../lib/auth/roles";
import { createUser, deleteUser, findUserByName, generatePassword, listUsers, resetUserPassword, updateUser } from "../../lib/auth/users";
import { configureDb, disconnectDb } from "../../lib/db/client";
import { AppError, ValidationError } from "../../lib/http/errors";
import type { Command } from "./command";
import { cliActor } from "./terminal";

const help = `Usage: bootdeck user <subcommand>

  user list                          every account: name, role, enabled
  user add NAME --role ROLE [--display-name TEXT]
                                     create an account (ROLE: ${roles.join(", ")})
  user passwd NAME                   set a new password and end the user's sessions
  user disable NAME | enable NAME    lock an account out (ends its sessions) or let it back in
  user delete NAME                   delete an account and its sessions (never the last enabled admin)

Passwords come from $BOOTDECK_USER_PASSWORD, or are generated and printed once.
Changes are recorded in the audit log as made by "cli:<your login>".`;

function flag(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  if (i >= 0) return argv[i + 1];
  return argv.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
}

function positional(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i]!.startsWith("--")) {
      if (!argv[i]!.includes("=")) i++;
    } else out.push(argv[i]!);
  }
  return out;
}


function passwordFromEnv(): { password: string; generated: boolean } {
  const given = process.env.BOOTDECK_USER_PASSWORD;
  return given ? { password: given, generated: false } : { password: generatePassword(), generated: true };
}

async function withUser(name: string | undefined): Promise<{ id: string; username: string }> {
  if (!name) throw new AppError(2, "usage", "give the user name");
  const u = await findUserByName({ username: name });
  if (!u) throw new AppError(1, "not_found", `no user named "${name}"`);
  return u;
}

export const user: Command = {
  async run(argv) {
    const [sub, ...rest] = argv;
    if (!sub || sub === "--help" || sub === "-h" || rest.includes("--help")) {
      console.log(help);
      return sub ? 0 : 2;
    }
    await configureDb();
    try {
      switch (sub) {
        case "list": {
          const users = await listUsers();
          console.log(["USER".padEnd(24), "ROLE".padEnd(8), "STATE".padEnd(9), "NAME"].join(" "));
          for (const u of users) console.log([u.username.padEnd(24), u.role.padEnd(8), (u.disabled ? "disabled" : "enabled").padEnd(9), u.displayName].join(" "));
          return 0;
        }
        case "add": {
          const [name] = positional(rest);
          const role = flag(rest, "--role");
          if (!name || !role) {
            console.error(`user add: give NAME and --role (${roles.join(", ")})\n\n${help}`);
            return 2;
          }
          if (!(roles as readonly string[]).includes(role)) {
            console.error(`user add: --role must be one of ${roles.join(", ")}`);
            return 2;
          }
          const { password, generated } = passwordFromEnv();
          const id = await createUser({ username: name, displayName: flag(rest, "--display-name"), password, role: role as Role });
          await recordAudit({ action: "user.create", username: cliActor(), target: id, details: { username: name, role, via: "cli" } });
          console.log(generated ? `user add: created "${name}" (${role}) with password ${password}\nuser add: this password is shown only once` : `user add: created "${name}" (${role}) with the password from BOOTDECK_USER_PASSWORD`);
          return 0;
        }
        case "passwd": {
          const u = await withUser(positional(rest)[0]);
          const { password, generated } = passwordFromEnv();
          await resetUserPassword({ id: u.id, password });
          await recordAudit({ action: "user.password_reset", username: cliActor(), target: u.id, details: { username: u.username, via: "cli" } });
          console.log(generated ? `user passwd: new password for "${u.username}": ${password}\nuser passwd: shown only once; their sessions have ended` : `user passwd: set the password of "${u.username}" from BOOTDECK_USER_PASSWORD; their sessions have ended`);
          return 0;
        }
        case "disable":
        case "enable": {
          const u = await withUser(positional(rest)[0]);
          // The command line is not an account, so it may disable anyone — except the last enabled admin.
          await updateUser({ id: u.id, actorId: "cli", disabled: sub === "disable" });
          await recordAudit({ action: `user.${sub}`, username: cliActor(), target: u.id, details: { username: u.username, via: "cli" } });
          console.log(`user ${sub}: "${u.username}" is ${sub}d`);
          return 0;
        }
        case "delete": {
          const u = await withUser(positional(rest)[0]);
          // As with disable: the command line is not an account, so only the last enabled admin is kept.
          const deleted = await deleteUser({ id: u.id, actorId: "cli" });
          await recordAudit({ action: "user.delete", username: cliActor(), target: u.id, details: { username: u.username, role: deleted.role, via: "cli" } });
          console.log(`user delete: "${u.username}" is deleted; their sessions have ended`);
          return 0;
        }
        default:
          console.error(`user: unknown subcommand "${sub}"\n\n${help}`);
          return 2;
      }
    } catch (err) {
      if (err instanceof ValidationError) {
        for (const e of err.errors) console.error(`user ${sub}: ${e.path} ${e.message}`);
        return 1;
      }
      if (err instanceof AppError) {
        console.error(`user ${sub}: ${err.message}`);
        return err.status === 2 ? 2 : 1;
      }
      throw err;
    } finally {
      await disconnectDb();
    }
  },
};
