// containerd's files: the configuration the plan shows, and the credentials drop-in written beside it
// at run time, which must not change what the configuration says under either import rule.
import { describe, expect, it } from "vitest";
import { clusterDefinitionSchema } from "../cluster/definition";
import { exampleDefinition } from "../cluster/example";
import { capabilitiesFor, imagesFor } from "./capabilities";
import { containerdConfig, registryAuthConfig } from "./runtime";

const def = clusterDefinitionSchema.parse(exampleDefinition({ name: "rt", hosts: 2 }));
const config = containerdConfig(def, imagesFor(capabilitiesFor(def.spec.kubernetes.version), "mirror.example:5000/k8s"));

describe("the registry credentials drop-in", () => {
  const dropIn = registryAuthConfig(config, "mirror.example:5000/k8s", "puller", 'pa"ss');

  it("repeats every line of the configuration but its imports, so containerd 1.7, which replaces a plugin's table with an imported one, keeps the sandbox image, cgroup driver and registry hosts", () => {
    const settings = config.split("\n").filter((l) => l.trim() && !l.startsWith("#") && !l.startsWith("imports ="));
    for (const line of settings) expect(dropIn.split("\n")).toContain(line);
    expect(dropIn).toContain('sandbox_image = "mirror.example:5000/k8s/pause:');
    expect(dropIn).toMatch(/SystemdCgroup = true/);
    expect(dropIn).toContain('config_path = "/etc/containerd/certs.d"');
    expect(dropIn).not.toMatch(/^imports/m);
  });

  it("adds the credentials for the mirror's host, quoted", () => {
    expect(dropIn).toContain('[plugins."io.containerd.grpc.v1.cri".registry.configs."mirror.example:5000".auth]\n  username = "puller"\n  password = "pa\\"ss"\n');
  });
});
