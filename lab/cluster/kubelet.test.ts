// The kubelet stand-in's flags and config file per version profile, and the pure helpers the lab
// stand-ins share (selectors, patches, image mapping).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { expand, imageKind, kubeletConfigFrom, KubeletFatal } from "./kubelet";
import { jsonPatch, mergePatch, strategicMergePatch } from "./patch";
import { matchFields, matchLabels, parseFieldSelector, parseLabelSelector } from "./selectors";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "lab-kubelet-"));
const fatal = (argv: string[], version: string) => {
  try {
    kubeletConfigFrom(argv, version);
  } catch (e) {
    if (e instanceof KubeletFatal) return e.message;
    throw e;
  }
  return "no error";
};

describe("kubelet flags per version profile", () => {
  it("rejects --require-kubeconfig from 1.10 and --network-plugin from 1.24, like pflag", () => {
    expect(fatal(["--require-kubeconfig"], "v1.34.4")).toBe("failed to parse kubelet flag: unknown flag: --require-kubeconfig");
    expect(fatal(["--network-plugin=cni"], "v1.34.4")).toBe("failed to parse kubelet flag: unknown flag: --network-plugin");
    expect(fatal(["--allow-privileged"], "v1.34.4")).toContain("unknown flag: --allow-privileged");
  });

  it("accepts the Topsail guide's 1.5 command line, with --cluster_dns spelled with underscores", () => {
    const c = kubeletConfigFrom(
      ["--kubeconfig=/etc/kubernetes/kubeconfig", "--require-kubeconfig", "--cni-conf-dir=/etc/kubernetes/cni/net.d", "--network-plugin=cni", "--lock-file=/var/run/lock/kubelet.lock", "--exit-on-lock-contention", "--pod-manifest-path=/etc/kubernetes/manifests", "--allow-privileged", "--node-labels=master=true", "--minimum-container-ttl-duration=6m0s", "--cluster_dns=10.3.0.10", "--cluster_domain=cluster.local", "--hostname-override=10.7.183.59"],
      "v1.5.3",
    );
    expect(c).toMatchObject({ nodeName: "10.7.183.59", staticPodPath: "/etc/kubernetes/manifests", clusterDns: ["10.3.0.10"], cniConfDir: "/etc/kubernetes/cni/net.d", exitOnLockContention: true, nodeLabels: { master: "true" } });
    expect(fatal(["--config=/x"], "v1.5.3")).toBe("failed to parse kubelet flag: unknown flag: --config");
  });

  it("fails on a missing or wrong config file and reads the right one", () => {
    expect(fatal([`--config=${tmp}/missing.yaml`], "v1.34.4")).toContain("no such file or directory");
    fs.writeFileSync(path.join(tmp, "bad.yaml"), "apiVersion: v1\nkind: ConfigMap\n");
    expect(fatal([`--config=${tmp}/bad.yaml`], "v1.34.4")).toContain('no kind "ConfigMap" is registered');
    fs.writeFileSync(path.join(tmp, "good.yaml"), "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\nstaticPodPath: /etc/kubernetes/manifests\nclusterDNS: [10.3.0.10]\nauthentication: {x509: {clientCAFile: /etc/kubernetes/pki/ca.crt}}\nregisterWithTaints: [{key: node-role.kubernetes.io/control-plane, effect: NoSchedule}]\n");
    const c = kubeletConfigFrom([`--config=${tmp}/good.yaml`, "--hostname-override=m1"], "v1.34.4");
    expect(c).toMatchObject({ staticPodPath: "/etc/kubernetes/manifests", clientCaFile: "/etc/kubernetes/pki/ca.crt", registerWithTaints: [{ key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" }] });
  });

  it("refuses node-role labels set by the kubelet itself from 1.16", () => {
    expect(fatal(["--node-labels=node-role.kubernetes.io/master="], "v1.34.4")).toContain("unknown 'kubernetes.io' or 'k8s.io' labels");
    expect(kubeletConfigFrom(["--node-labels=node.kubernetes.io/pool=a"], "v1.34.4").nodeLabels).toEqual({ "node.kubernetes.io/pool": "a" });
  });
});

describe("image mapping and helpers", () => {
  it("maps images to the real etcd, the stand-ins or placeholders", () => {
    expect(imageKind("registry.k8s.io/etcd:3.5.16-0", ["etcd", "--name=m1"])).toBe("etcd");
    expect(imageKind("quay.io/coreos/hyperkube:v1.5.3_coreos.0", ["/hyperkube", "apiserver"])).toBe("kube-apiserver");
    expect(imageKind("registry.k8s.io/kube-scheduler:v1.34.4", ["kube-scheduler"])).toBe("kube-scheduler");
    expect(imageKind("docker.io/flannel/flannel:v0.26.1", ["/opt/bin/flanneld"])).toBe("flannel");
    expect(imageKind("registry.k8s.io/coredns/coredns:v1.11.3", [])).toBe("placeholder");
    expect(expand("--advertise-address=$(POD_IP) $$(KEEP) $(MISSING)", { POD_IP: "10.0.0.1" })).toBe("--advertise-address=10.0.0.1 $(KEEP) $(MISSING)");
  });

  it("applies merge, JSON and strategic merge patches", () => {
    expect(mergePatch({ a: 1, b: { c: 2, d: 3 } }, { b: { c: null, e: 4 } })).toEqual({ a: 1, b: { d: 3, e: 4 } });
    expect(jsonPatch({ a: [1, 2] }, [{ op: "add", path: "/a/-", value: 3 }, { op: "replace", path: "/a/0", value: 0 }])).toEqual({ a: [0, 2, 3] });
    const cur = { spec: { containers: [{ name: "a", image: "a:1", args: ["x"] }, { name: "b", image: "b:1" }] } };
    const patched = strategicMergePatch(cur, { spec: { containers: [{ name: "b", image: "b:2" }], "$setElementOrder/containers": [{ name: "a" }, { name: "b" }] } }) as any;
    expect(patched.spec.containers).toEqual([{ name: "a", image: "a:1", args: ["x"] }, { name: "b", image: "b:2" }]);
  });

  it("matches label and field selectors", () => {
    expect(matchLabels(parseLabelSelector("app=x,tier!=db,env in (a,b),!legacy"), { app: "x", env: "b" })).toBe(true);
    expect(matchLabels(parseLabelSelector("app=x,env notin (b)"), { app: "x", env: "b" })).toBe(false);
    expect(matchFields(parseFieldSelector("spec.nodeName=n1,metadata.name!=p"), { spec: { nodeName: "n1" }, metadata: { name: "q" } })).toBe(true);
  });
});
