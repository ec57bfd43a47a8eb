import { readFile } from "node:fs/promises";
import { parseClusterYaml } from "../../lib/cluster/yaml";
import { printErrors, printWarnings } from "../problems";
import type { Command } from "./command";

export const validate: Command = {
  async run(argv) {
    const file = argv.find((a) => !a.startsWith("-"));
    if (!file || argv.includes("--help")) {
      console.log("Usage: bootdeck validate cluster.yaml\n\nExits 0 when valid, 1 when it has problems, 2 on usage errors.");
      return file ? 0 : 2;
    }
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (err) {
      console.error(`bootdeck validate: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
      return 2;
    }
    const result = parseClusterYaml(text);
    printWarnings(result.warnings);
    if (!result.ok) {
      printErrors(file, result.errors);
      return 1;
    }
    const hosts = result.definition.spec.hosts;
    const masters = hosts.filter((h) => h.role === "master").length;
    console.log(`${file}: valid — cluster ${result.definition.metadata.name}, ${masters} master(s), ${hosts.length - masters} worker(s)`);
    return 0;
  },
};
