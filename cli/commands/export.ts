import { toClusterYaml } from "../../lib/cluster/yaml";
import { findClusterIdByName, getExportableDefinition } from "../../lib/clusters/repository";
import { disconnectDb } from "../../lib/db/client";
import type { Command } from "./command";

export const exportCommand: Command = {
  async run(argv) {
    const name = argv.find((a) => !a.startsWith("-"));
    if (!name || argv.includes("--help")) {
      console.log("Usage: bootdeck export CLUSTER-NAME > cluster.yaml");
      return name ? 0 : 2;
    }
    try {
      const id = await findClusterIdByName({ name });
      if (!id) {
        console.error(`bootdeck export: no cluster named "${name}"`);
        return 1;
      }
      process.stdout.write(toClusterYaml(await getExportableDefinition({ id })));
      return 0;
    } finally {
      await disconnectDb();
    }
  },
};
