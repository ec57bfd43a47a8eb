import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { mirrorBody } from "./mirror";

const text = (b: ReturnType<typeof mirrorBody>) => (b && Buffer.isBuffer(b) ? b.toString() : undefined);

describe("the lab's binary mirror", () => {
  it("serves the 1.5 profile's kubelet stand-in as hyperkube in Kubernetes' release layout, with a bare digest beside it", () => {
    const hyperkube = mirrorBody("/dl.k8s.io/release/v1.5.3/bin/linux/amd64/hyperkube");
    expect(text(hyperkube)).toMatch(/^#!\/bin\/sh\n.*BOOTDECK_LAB_K8S_VERSION=v1\.5\.3/s);
    const sum = text(mirrorBody("/dl.k8s.io/release/v1.5.3/bin/linux/amd64/hyperkube.sha256"));
    expect(sum).toBe(createHash("sha256").update(hyperkube as Buffer).digest("hex"));
  });

  it("answers nothing for unknown versions, names and paths, and never leaves its trees", () => {
    expect(mirrorBody("/dl.k8s.io/release/v1.32.9/bin/linux/amd64/kubelet")).toBeUndefined();
    expect(mirrorBody("/dl.k8s.io/release/v1.5.3/bin/linux/amd64/etcd")).toBeUndefined();
    expect(mirrorBody("/github.com/containerd/containerd/releases/download/v9.9.9/containerd-9.9.9-linux-amd64.tar.gz")).toBeUndefined();
    expect(mirrorBody("/github.com/../../etc/passwd")).toBeUndefined();
    expect(mirrorBody("/kubernetes/v1.5.3/kubelet")).toBeUndefined();
  });
});
