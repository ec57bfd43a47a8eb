// Usage: tsx lab/write-cluster-yaml.ts LAB-NAME [KUBERNETES-VERSION] > cluster.yaml
import { readState } from "./state";
import { labClusterYaml } from "./cluster-yaml";

const name = process.argv[2] ?? "dev";
const state = readState(name);
if (!state) {
  console.error(`no lab named "${name}" is up (bin/bootdeck lab up … --name ${name})`);
  process.exit(1);
}
process.stdout.write(labClusterYaml(state, undefined, process.argv[3]));
