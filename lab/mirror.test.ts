import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import fs from "node:fs";
import { defaultKubernetesVersion } from "../lib/cluster/versions";
import { mirrorBody } from "./mirror";
import { cachedComponent } from "./upstream/build";
import { kubernetesComponent } from "./upstream/components";

const text = (b: ReturnType<typeof mirrorBody>) => (b && Buffer.isBuffer(b) ? b.toString() : undefined);

describe("the lab's binary mirror", () => {
  it("serves a built Kubernetes binary in the release layout with a bare digest beside it, once it is in the cache", () => {
    const built = cachedComponent(kubernetesComponent(defaultKubernetesVersion))?.binaries.kubelet?.path;
    const kubelet = mirrorBody(`/dl.k8s.io/release/${defaultKubernetesVersion}/bin/linux/amd64/kubelet`);
    if (!built) {
      expect(kubelet).toBeUndefined();
      return;
    }
    expect(kubelet).toEqual({ file: built });
    const sum = text(mirrorBody(`/dl.k8s.io/release/${defaultKubernetesVersion}/bin/linux/amd64/kubelet.sha256`));
    expect(sum).toBe(createHash("sha256").update(fs.readFileSync(built)).digest("hex"));
  });

  it("answers nothing for unknown versions, names and paths, and never leaves its trees", () => {
    expect(mirrorBody("/dl.k8s.io/release/v1.32.9/bin/linux/amd64/kubelet")).toBeUndefined();
    expect(mirrorBody("/dl.k8s.io/release/v1.5.3/bin/linux/amd64/kubelet")).toBeUndefined();
    expect(mirrorBody(`/dl.k8s.io/release/${defaultKubernetesVersion}/bin/linux/amd64/no-such-binary`)).toBeUndefined();
    expect(mirrorBody("/github.com/containerd/containerd/releases/download/v9.9.9/containerd-9.9.9-linux-amd64.tar.gz")).toBeUndefined();
    expect(mirrorBody("/github.com/../../etc/passwd")).toBeUndefined();
    expect(mirrorBody("/kubernetes/v1.5.3/kubelet")).toBeUndefined();
  });
});
