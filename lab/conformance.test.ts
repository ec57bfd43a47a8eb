import { describe, expect, it } from "vitest";
import { mirroredImage } from "../lib/assets/capabilities";
import { GinkgoProgress, repoList } from "./conformance";

describe("the conformance suite's images", () => {
  it("are pulled from the lab's registry under the names the product's mirror rule gives upstream's", () => {
    const list = Object.fromEntries(
      repoList("10.237.30.1:5000")
        .trim()
        .split("\n")
        .map((l) => l.split(": ") as [string, string]),
    );
    // test/utils/image builds a reference as <registry>/<name>:<tag>.
    expect(`${list.promoterE2eRegistry}/agnhost:2.63.0`).toBe(mirroredImage("registry.k8s.io/e2e-test-images/agnhost:2.63.0", "10.237.30.1:5000"));
    expect(`${list.gcRegistry}/pause:3.10.2`).toBe(mirroredImage("registry.k8s.io/pause:3.10.2", "10.237.30.1:5000"));
    expect(`${list.gcEtcdRegistry}/etcd:3.6.8-0`).toBe(mirroredImage("registry.k8s.io/etcd:3.6.8-0", "10.237.30.1:5000"));
    expect(`${list.sigStorageRegistry}/csi-attacher:v4.11.0`).toBe(mirroredImage("registry.k8s.io/sig-storage/csi-attacher:v4.11.0", "10.237.30.1:5000"));
    expect(`${list.dockerLibraryRegistry}/nginx:1.27`).toBe(mirroredImage("docker.io/library/nginx:1.27", "10.237.30.1:5000"));
  });
});

describe("progress read from ginkgo's output", () => {
  it("counts finished specs as their dots arrive, mid-line, and names each failure from the line after its marker", () => {
    const p = new GinkgoProgress();
    expect(p.feed("Running Suite: Kubernetes e2e suite\nWill run 47 of 7579 specs\nRunning in parallel across 4 processes\nSSSSSSSS•SSS")).toEqual([]);
    expect([p.total, p.done, p.failed]).toEqual([47, 1, 0]);
    expect(p.feed("SS•SS")).toEqual([]);
    expect(p.done).toBe(2);
    const failure = [
      "SSS",
      "------------------------------",
      "• [FAILED] [22.348 seconds]",
      "[sig-network] Networking Granular Checks: Pods [It] should function for intra-pod communication: udp [NodeConformance] [Conformance] [sig-network, NodeConformance, Conformance]",
      "k8s.io/kubernetes@v1.36.3/test/e2e/common/network/networking.go:96",
      "  [FAILED] failed,  2 out of 2 connections failed",
      "",
    ].join("\n");
    // The marker and the name may arrive in different chunks.
    expect(p.feed(failure.slice(0, 60))).toEqual([]);
    expect(p.feed(failure.slice(60))).toEqual(["[sig-network] Networking Granular Checks: Pods [It] should function for intra-pod communication: udp [NodeConformance] [Conformance]"]);
    expect([p.done, p.failed]).toEqual([3, 1]);
  });
});
