// bootdeck images: every container image a cluster pulls, so an air-gapped site can mirror them first.
import { readFile } from "node:fs/promises";
import { clusterImages } from "../../lib/assets/capabilities";
import { parseClusterYaml } from "../../lib/cluster/yaml";
import { printErrors } from "../problems";
import type { Command } from "./command";

const help = `Usage: bootdeck images --config cluster.yaml [--upstream]

Prints every container image the cluster runs, one per line, as its nodes will pull it: through
spec.images.registry when it is set. --upstream prints the names upstream publishes instead, with
the mirrored name beside each (what \`crane copy\` or \`skopeo copy\` needs to fill the mirror).`;

export const images: Command = {
  async run(argv) {
    const i = argv.indexOf("--config");
    const file = i >= 0 ? argv[i + 1] : undefined;
    if (!file || argv.includes("--help")) {
      console.log(help);
      return file ? 0 : 2;
    }
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (err) {
      console.error(`bootdeck images: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
      return 2;
    }
    const result = parseClusterYaml(text);
    if (!result.ok) {
      printErrors(file, result.errors);
      return 1;
    }
    const def = result.definition;
    for (const image of clusterImages(def.spec.kubernetes.version, def.spec.images.registry)) {
      console.log(argv.includes("--upstream") ? `${image.upstream}${image.pulled !== image.upstream ? `\t${image.pulled}` : ""}` : image.pulled);
    }
    return 0;
  },
};
