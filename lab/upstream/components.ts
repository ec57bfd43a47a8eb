// The upstream programs the lab builds from Go modules (and pause from its C source), by version. What
// to build follows the product's own tables (release pins, runtime versions), so the lab runs exactly
// what a Bootdeck cluster of that version runs. Test bed only.
import { addonVersions, runtimeVersions } from "../../lib/cluster/runtime-versions";
import { profileOf, versionProfiles } from "../../lib/cluster/versions";

export type GoBinary = {
  /** File name in the component's bin/ directory. */
  name: string;
  /** Package to build (a main package). */
  pkg: string;
  cgo?: boolean;
  tags?: string[];
  ldflags?: string[];
  /** Link statically (cgo programs: runc). */
  static?: boolean;
  /** Compile the package's tests into one binary (`go test -c`): the conformance suite's e2e.test. */
  test?: boolean;
};

export type Component = {
  /** Cache key prefix, e.g. "kubernetes". */
  id: string;
  /** The version this build is of (a module version, or an image tag for pause). */
  version: string;
  /** Modules required by the build module; the first is the one whose commands are built. */
  modules: { path: string; version: string }[];
  binaries: GoBinary[];
  /** Kubernetes: pin its staging modules (k8s.io/api, …) to the matching v0.N.x. */
  stagingReplaces?: boolean;
  /** Dependencies pinned to another version (or module, `with`) because the module proxy does not serve the one required. */
  replaces?: { path: string; version: string; with?: string; why: string }[];
  /** pause: compiled with gcc from the Kubernetes module's build/pause/linux/pause.c. */
  pauseFrom?: string;
  /** Debian packages the build needs (cgo headers and static libraries). */
  debianBuildDeps?: string[];
};

const k8sVersionFlags = (version: string): string[] => {
  const [, major, minor] = /^v(\d+)\.(\d+)\./.exec(version) ?? [];
  const vars = { gitVersion: version, gitMajor: major ?? "", gitMinor: minor ?? "", gitTreeState: "clean", buildDate: "1970-01-01T00:00:00Z" };
  // component-base is what every command prints; client-go's copy is what client libraries report.
  return ["k8s.io/component-base/version", "k8s.io/client-go/pkg/version"].flatMap((pkg) => Object.entries(vars).map(([k, v]) => `-X ${pkg}.${k}=${v}`));
};

/** A component whose programs are built from the k8s.io/kubernetes module of `version`, its staging repositories taken from that module. */
const fromKubernetesModule = (id: string, version: string, binaries: Component["binaries"]): Component => ({
  id,
  version,
  modules: [{ path: "k8s.io/kubernetes", version }],
  stagingReplaces: true,
  binaries,
});

export function kubernetesComponent(version: string): Component {
  const cmds = ["kube-apiserver", "kube-controller-manager", "kube-scheduler", "kube-proxy", "kubelet", "kubectl"];
  return fromKubernetesModule(
    "kubernetes",
    version,
    cmds.map((name) => ({ name, pkg: `k8s.io/kubernetes/cmd/${name}`, ldflags: k8sVersionFlags(version) })),
  );
}

/**
 * kubeadm of the same release, for the side-by-side benchmark only (bench/vs-kubeadm.ts): built on
 * demand, never by `lab binaries --all`.
 */
export function kubeadmComponent(version: string): Component {
  return fromKubernetesModule("kubeadm", version, [{ name: "kubeadm", pkg: "k8s.io/kubernetes/cmd/kubeadm", ldflags: k8sVersionFlags(version) }]);
}

/** etcd image tags look like 3.6.8-0; the module version is v3.6.8. */
export function etcdComponent(imageTag: string): Component {
  const version = `v${imageTag.replace(/-\d+$/, "")}`;
  return {
    id: "etcd",
    version,
    modules: [
      { path: "go.etcd.io/etcd/server/v3", version },
      { path: "go.etcd.io/etcd/etcdctl/v3", version },
      { path: "go.etcd.io/etcd/etcdutl/v3", version },
    ],
    binaries: [
      { name: "etcd", pkg: "go.etcd.io/etcd/server/v3" },
      { name: "etcdctl", pkg: "go.etcd.io/etcd/etcdctl/v3" },
      { name: "etcdutl", pkg: "go.etcd.io/etcd/etcdutl/v3" },
    ],
  };
}

export function corednsComponent(version: string): Component {
  return {
    id: "coredns",
    version,
    modules: [{ path: "github.com/coredns/coredns", version }],
    // CoreDNS compiles its version in (coremain.CoreVersion).
    binaries: [{ name: "coredns", pkg: "github.com/coredns/coredns" }],
  };
}

/** pause is C; it is compiled from the source in the Kubernetes module of the newest profile. */
export function pauseComponent(tag: string): Component {
  const newest = versionProfiles[versionProfiles.length - 1]?.defaultVersion ?? "";
  return { id: "pause", version: tag, modules: [{ path: "k8s.io/kubernetes", version: newest }], binaries: [], pauseFrom: newest };
}

export function containerdComponent(version = runtimeVersions.containerd): Component {
  const v = `v${version}`;
  const ld = [`-X github.com/containerd/containerd/v2/version.Version=${v}`, "-X github.com/containerd/containerd/v2/version.Revision=bootdeck-lab"];
  const tags = ["no_btrfs", "no_devmapper", "no_zfs", "urfave_cli_no_docs"];
  return {
    id: "containerd",
    version: v,
    modules: [{ path: "github.com/containerd/containerd/v2", version: v }],
    binaries: ["containerd", "containerd-shim-runc-v2", "ctr"].map((name) => ({ name, pkg: `github.com/containerd/containerd/v2/cmd/${name}`, tags, ldflags: ld })),
  };
}

export function runcComponent(version = runtimeVersions.runc): Component {
  return {
    id: "runc",
    version: `v${version}`,
    modules: [{ path: "github.com/opencontainers/runc", version: `v${version}` }],
    // runc needs cgo (its nsenter runs before the Go runtime starts) and libseccomp for seccomp profiles;
    // upstream ships it statically linked, and so does the lab.
    binaries: [{ name: "runc", pkg: "github.com/opencontainers/runc", cgo: true, static: true, tags: ["seccomp", "urfave_cli_no_docs", "netgo", "osusergo"], ldflags: [`-X main.version=${version}`] }],
    debianBuildDeps: ["libseccomp-dev", "pkg-config"],
  };
}

export function crictlComponent(version = runtimeVersions.crictl): Component {
  return {
    id: "crictl",
    version,
    modules: [{ path: "sigs.k8s.io/cri-tools", version }],
    binaries: [{ name: "crictl", pkg: "sigs.k8s.io/cri-tools/cmd/crictl", ldflags: [`-X sigs.k8s.io/cri-tools/pkg/version.Version=${version}`] }],
  };
}

export function cniPluginsComponent(version = runtimeVersions.cniPlugins): Component {
  const plugins = { bridge: "main/bridge", loopback: "main/loopback", "host-local": "ipam/host-local", portmap: "meta/portmap" };
  return {
    id: "cni-plugins",
    version,
    modules: [{ path: "github.com/containernetworking/plugins", version }],
    binaries: Object.entries(plugins).map(([name, dir]) => ({
      name,
      pkg: `github.com/containernetworking/plugins/plugins/${dir}`,
      ldflags: [`-X github.com/containernetworking/plugins/pkg/utils/buildversion.BuildVersion=${version}`],
    })),
  };
}

export function flannelComponent(version: string = addonVersions.flannel): Component {
  return {
    id: "flannel",
    version,
    modules: [{ path: "github.com/flannel-io/flannel", version }],
    replaces: [
      {
        path: "github.com/tencentcloud/tencentcloud-sdk-go/tencentcloud/vpc",
        version: "v1.0.1000",
        why: "the version flannel requires is not on the module proxy; only its tencentvpc backend uses it, which the lab never runs",
      },
    ],
    binaries: [
      // cgo: the udp backend is C; upstream links flanneld with cgo too.
      { name: "flanneld", pkg: "github.com/flannel-io/flannel", cgo: true, static: true, tags: ["netgo", "osusergo"], ldflags: [`-X github.com/flannel-io/flannel/pkg/version.Version=${version}`] },
      { name: "install-conf", pkg: "github.com/flannel-io/flannel/cmd/install_conf" },
    ],
  };
}

/**
 * flannel's CNI plugin lives in github.com/flannel-io/cni-plugin, which the Go module proxy does not
 * serve. containernetworking/plugins v0.9.1 still carried the same plugin (flannel-io forked it from
 * there), with the same configuration and the same delegation to bridge: the lab builds that one. It
 * speaks CNI up to 0.4.0, which is why Bootdeck's flannel configuration says 0.3.1 (every flannel CNI
 * plugin accepts it).
 */
export function flannelCniComponent(): Component {
  return {
    id: "flannel-cni",
    version: "v0.9.1",
    modules: [{ path: "github.com/containernetworking/plugins", version: "v0.9.1" }],
    binaries: [{ name: "flannel", pkg: "github.com/containernetworking/plugins/plugins/meta/flannel" }],
  };
}

/** agnhost, Kubernetes' e2e test server, from the Kubernetes module of the newest profile. */
export function agnhostComponent(): Component {
  const newest = versionProfiles[versionProfiles.length - 1]?.defaultVersion ?? "";
  return fromKubernetesModule("agnhost", newest, [{ name: "agnhost", pkg: "k8s.io/kubernetes/test/images/agnhost" }]);
}

/**
 * The upstream conformance suite of one Kubernetes version: e2e.test (the test/e2e package's tests,
 * every SIG's specs linked in), ginkgo, which runs it on several nodes at once, and the test programs
 * its images carry. From the same module
 * as the cluster's binaries, so the suite is the one that version was released with.
 */
export function conformanceComponent(version: string): Component {
  return fromKubernetesModule("conformance", version, [
    { name: "e2e.test", pkg: "k8s.io/kubernetes/test/e2e", test: true, ldflags: k8sVersionFlags(version) },
    { name: "ginkgo", pkg: "github.com/onsi/ginkgo/v2/ginkgo" },
    // The test programs its own images carry (test/images/…): agnhost, and nonewprivs' nnp.
    { name: "agnhost", pkg: "k8s.io/kubernetes/test/images/agnhost" },
    { name: "nnp", pkg: "k8s.io/kubernetes/test/images/nonewprivs" },
  ]);
}

/**
 * The sample API server the conformance suite's Aggregator spec registers as an aggregated API: the
 * module k8s.io/sample-apiserver (the Kubernetes module's test/images/sample-apiserver builds a tag of
 * it into the image). `imageTag` is the suite's (1.29.2): the module release of that minor and patch.
 */
export function sampleApiserverComponent(imageTag: string): Component {
  const [, minor, patch] = /^1\.(\d+)\.(\d+)$/.exec(imageTag) ?? [];
  if (minor === undefined || patch === undefined) throw new Error(`sample-apiserver image tag ${imageTag}: expected 1.<minor>.<patch>`);
  const version = `v0.${minor}.${patch}`;
  return {
    id: "sample-apiserver",
    version,
    modules: [{ path: "k8s.io/sample-apiserver", version }],
    binaries: [{ name: "sample-apiserver", pkg: "k8s.io/sample-apiserver" }],
  };
}

/** distribution's registry: the lab's image registry on the bridge. */
export function registryComponent(version = "v3.1.2"): Component {
  return {
    id: "registry",
    version,
    modules: [{ path: "github.com/distribution/distribution/v3", version }],
    binaries: [{ name: "registry", pkg: "github.com/distribution/distribution/v3/cmd/registry", ldflags: [`-X github.com/distribution/distribution/v3/version.version=${version}`] }],
  };
}

/** KWOK: the lab's virtual nodes for the dashboard's scale tests (lab/virtual-nodes.ts). */
export function kwokComponent(version = "v0.8.0"): Component {
  return {
    id: "kwok",
    version,
    modules: [{ path: "sigs.k8s.io/kwok", version }],
    binaries: [{ name: "kwok", pkg: "sigs.k8s.io/kwok/cmd/kwok", ldflags: [`-X sigs.k8s.io/kwok/pkg/consts.Version=${version}`] }],
  };
}

/**
 * SeaweedFS: the S3-compatible object store the backup tests upload to (`weed server -s3` on loopback).
 * Apache-2.0; MinIO's server is AGPL. Not tagged on the module proxy: a pseudo-version of its main branch.
 */
export function seaweedfsComponent(version = "v0.0.0-20261109003541-7506e5f91cd6"): Component {
  return {
    id: "seaweedfs",
    version,
    modules: [{ path: "github.com/seaweedfs/seaweedfs", version }],
    // Its own go.mod replaces this module (the original repository is gone); a requiring module must too.
    replaces: [{ path: "github.com/tyler-smith/go-bip39", with: "github.com/cosmos/go-bip39", version: "v1.0.0", why: "seaweedfs's go.mod replaces it: the original repository was deleted" }],
    binaries: [{ name: "weed", pkg: "github.com/seaweedfs/seaweedfs/weed" }],
  };
}

/**
 * promtool, Prometheus' own checker: the metrics endpoint's test runs `promtool check metrics` on what
 * /metrics serves. Not part of a cluster; built into the same cache on first use.
 */
export function promtoolComponent(version = "v0.316.0"): Component {
  return {
    id: "promtool",
    version,
    modules: [{ path: "github.com/prometheus/prometheus", version }],
    // remove_all_sd: without the cloud service discoveries (AWS, Azure, GCE …), which the checks of
    // metrics and rules never use and which are most of the build.
    binaries: [{ name: "promtool", pkg: "github.com/prometheus/prometheus/cmd/promtool", tags: ["remove_all_sd"], ldflags: [`-X github.com/prometheus/common/version.Version=${version}`] }],
  };
}

/** Everything a lab cluster of this Kubernetes version runs, control plane to pods. */
export function componentsForCluster(kubernetesVersion: string): Component[] {
  const { pins } = profileOf(kubernetesVersion);
  return [
    kubernetesComponent(kubernetesVersion),
    etcdComponent(pins.etcd),
    corednsComponent(pins.coredns),
    pauseComponent(pins.pause),
    ...runtimeComponents(),
  ];
}

/** Version-independent node software and add-ons. */
export function runtimeComponents(): Component[] {
  return [containerdComponent(), runcComponent(), crictlComponent(), cniPluginsComponent(), flannelComponent(), flannelCniComponent(), agnhostComponent()];
}

export const componentKey = (c: Component) => `${c.id}-${c.version}`;
