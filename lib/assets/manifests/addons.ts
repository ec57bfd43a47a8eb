// The rest of the self-hosted cluster: kube-proxy, CoreDNS and flannel.
import { IN_CLUSTER_KUBECONFIG_DIR, masterTolerations, tolerateAll, type ManifestFile, type RenderContext } from "../context";
import type { K8sObject } from "../yaml-out";
import { NS, clusterRoleBinding, inClusterKubeconfigVolume, meta, pdb, serviceAccount, spreadAcrossNodes, spreadReplicas, workload } from "./common";
import { nodeNameEnv } from "./flags";

const rbacV1 = "rbac.authorization.k8s.io/v1";
const critical = (cls: string) => ({ priorityClassName: cls });
const podMeta = [
  { name: "POD_NAME", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
  { name: "POD_NAMESPACE", valueFrom: { fieldRef: { fieldPath: "metadata.namespace" } } },
];

export function kubeProxyManifests(ctx: RenderContext): ManifestFile[] {
  const labels = { "k8s-app": "kube-proxy", tier: "node" };
  const ds = workload("DaemonSet", "kube-proxy", NS, labels, {
    hostNetwork: true,
    tolerations: tolerateAll,
    ...critical("system-node-critical"),
    serviceAccountName: "kube-proxy",
    containers: [
      {
        name: "kube-proxy",
        image: ctx.images.proxy,
        command: [
          "kube-proxy",
          `--cluster-cidr=${ctx.def.spec.network.podCidr}`,
          "--hostname-override=$(NODE_NAME)",
          `--kubeconfig=${IN_CLUSTER_KUBECONFIG_DIR}/kubeconfig`,
          "--proxy-mode=iptables",
          // Leave nf_conntrack_max (kernel-wide) to the host: preflight checks it is large enough.
          "--conntrack-max-per-core=0",
        ],
        env: nodeNameEnv,
        securityContext: { privileged: true },
        volumeMounts: [
          { name: "kubeconfig", mountPath: IN_CLUSTER_KUBECONFIG_DIR, readOnly: true },
          { name: "lib-modules", mountPath: "/lib/modules", readOnly: true },
          { name: "ssl-certs-host", mountPath: "/etc/ssl/certs", readOnly: true },
          { name: "xtables-lock", mountPath: "/run/xtables.lock" },
        ],
      },
    ],
    volumes: [
      inClusterKubeconfigVolume,
      { name: "lib-modules", hostPath: { path: "/lib/modules" } },
      { name: "ssl-certs-host", hostPath: { path: "/etc/ssl/certs" } },
      { name: "xtables-lock", hostPath: { path: "/run/xtables.lock", type: "FileOrCreate" } },
    ],
  });
  return [
    { path: "manifests/kube-proxy.yaml", purpose: "kube-proxy DaemonSet on every node (service routing)", objects: [ds] },
    {
      path: "manifests/kube-proxy-rbac.yaml",
      purpose: "kube-proxy's service account bound to system:node-proxier",
      objects: [serviceAccount("kube-proxy"), clusterRoleBinding("bootdeck:kube-proxy", "system:node-proxier", [{ kind: "ServiceAccount", name: "kube-proxy" }])],
    },
  ];
}

export function corednsManifests(ctx: RenderContext): ManifestFile[] {
  const domain = ctx.def.spec.network.clusterDomain;
  const corefile = [
    ".:53 {",
    "    errors",
    "    health",
    "    ready",
    `    kubernetes ${domain} in-addr.arpa ip6.arpa {`,
    "      pods insecure",
    "      fallthrough in-addr.arpa ip6.arpa",
    "    }",
    "    prometheus :9153",
    "    forward . /etc/resolv.conf",
    "    cache 30",
    "    loop",
    "    reload",
    "    loadbalance",
    "}",
    "",
  ].join("\n");
  const labels = { "k8s-app": "kube-dns" };
  const corednsReplicas = spreadReplicas(ctx.derived.masters.length + ctx.derived.workers.length);
  const deploy = workload("Deployment", "coredns", NS, labels, {
    affinity: spreadAcrossNodes(labels),
    tolerations: masterTolerations(),
    ...critical("system-cluster-critical"),
    serviceAccountName: "coredns",
    dnsPolicy: "Default",
    containers: [
      {
        name: "coredns",
        image: ctx.images.coredns,
        args: ["-conf", "/etc/coredns/Corefile"],
        ports: [
          { name: "dns", containerPort: 53, protocol: "UDP" },
          { name: "dns-tcp", containerPort: 53, protocol: "TCP" },
          { name: "metrics", containerPort: 9153, protocol: "TCP" },
        ],
        resources: { limits: { memory: "170Mi" }, requests: { cpu: "100m", memory: "70Mi" } },
        securityContext: { allowPrivilegeEscalation: false, capabilities: { add: ["NET_BIND_SERVICE"], drop: ["ALL"] }, readOnlyRootFilesystem: true },
        livenessProbe: { httpGet: { path: "/health", port: 8080, scheme: "HTTP" }, initialDelaySeconds: 60, timeoutSeconds: 5 },
        readinessProbe: { httpGet: { path: "/ready", port: 8181, scheme: "HTTP" } },
        volumeMounts: [{ name: "config", mountPath: "/etc/coredns", readOnly: true }],
      },
    ],
    volumes: [{ name: "config", configMap: { name: "coredns", items: [{ key: "Corefile", path: "Corefile" }] } }],
  }, { replicas: corednsReplicas });
  const service: K8sObject = {
    apiVersion: "v1",
    kind: "Service",
    metadata: { ...meta("kube-dns", NS, { "k8s-app": "kube-dns", "kubernetes.io/name": "CoreDNS" }), annotations: { "prometheus.io/port": "9153", "prometheus.io/scrape": "true" } },
    spec: {
      selector: labels,
      clusterIP: ctx.derived.dnsServiceIp,
      ports: [
        { name: "dns", port: 53, protocol: "UDP" },
        { name: "dns-tcp", port: 53, protocol: "TCP" },
        { name: "metrics", port: 9153, protocol: "TCP" },
      ],
    },
  };
  return [
    { path: "manifests/coredns-config.yaml", purpose: `CoreDNS configuration (serves ${domain})`, objects: [{ apiVersion: "v1", kind: "ConfigMap", metadata: meta("coredns", NS), data: { Corefile: corefile } }] },
    { path: "manifests/coredns.yaml", purpose: `CoreDNS Deployment (${corednsReplicas} ${corednsReplicas === 1 ? "replica" : "replicas, on distinct nodes"})`, objects: [deploy] },
    { path: "manifests/coredns-service.yaml", purpose: `cluster DNS Service at ${ctx.derived.dnsServiceIp}`, objects: [service] },
    // A drain that takes a batch of nodes at once would otherwise evict both replicas together.
    { path: "manifests/coredns-disruption.yaml", purpose: corednsReplicas >= 2 ? "keeps one CoreDNS replica answering through voluntary disruptions (a drain)" : "lets the lone CoreDNS replica be evicted (its node could not be drained otherwise)", objects: [pdb("coredns", labels, corednsReplicas)] },
    {
      path: "manifests/coredns-rbac.yaml",
      purpose: "CoreDNS service account and read access to services, endpoints, pods and namespaces",
      objects: [
        serviceAccount("coredns"),
        {
          apiVersion: rbacV1,
          kind: "ClusterRole",
          metadata: meta("system:coredns", undefined),
          rules: [
            { apiGroups: [""], resources: ["endpoints", "services", "pods", "namespaces"], verbs: ["list", "watch"] },
            { apiGroups: ["discovery.k8s.io"], resources: ["endpointslices"], verbs: ["list", "watch"] },
          ],
        },
        clusterRoleBinding("system:coredns", "system:coredns", [{ kind: "ServiceAccount", name: "coredns" }]),
      ],
    },
  ];
}

export function flannelManifests(ctx: RenderContext): ManifestFile[] {
  // Upstream flannel runs in a namespace of its own.
  const ns = "kube-flannel";
  const labels = { app: "flannel", tier: "node" };
  const flannel = ctx.def.spec.network.flannel;
  // cniVersion 0.3.1: every flannel CNI plugin accepts it, from containernetworking's to flannel-io's.
  const cniConf = { name: "cbr0", cniVersion: "0.3.1", plugins: [{ type: "flannel", delegate: { hairpinMode: true, isDefaultGateway: true } }, { type: "portmap", capabilities: { portMappings: true } }] };
  const cniFile = "10-flannel.conflist";
  const backend = { Type: "vxlan", ...(flannel?.vxlanPort ? { Port: flannel.vxlanPort } : {}) };
  const netConf = { Network: ctx.def.spec.network.podCidr, EnableNFTables: false, Backend: backend };
  const config: K8sObject = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: meta("kube-flannel-cfg", ns, labels),
    data: { "cni-conf.json": `${JSON.stringify(cniConf, null, 2)}\n`, "net-conf.json": `${JSON.stringify(netConf, null, 2)}\n` },
  };
  const healthz = { httpGet: { path: "/healthz", port: 8081 } };
  const flanneld = {
    name: "kube-flannel",
    image: ctx.images.flannel,
    command: ["/opt/bin/flanneld"],
    // Its rules are checked again every 30 s, as often as kube-proxy syncs its own, not every 5 s: each
    // check runs iptables once per rule (an idle five-node cluster ran it about 13 times a second).
    args: ["--ip-masq", "--kube-subnet-mgr", "--healthz-port=8081", "--iptables-resync=30", ...(flannel?.iface ? [`--iface=${flannel.iface}`] : [])],
    ports: [{ name: "healthz", containerPort: 8081, protocol: "TCP" }],
    livenessProbe: { ...healthz, initialDelaySeconds: 10, periodSeconds: 30 },
    readinessProbe: { httpGet: { path: "/readyz", port: 8081 }, initialDelaySeconds: 5, periodSeconds: 10 },
    env: [...podMeta, { name: "EVENT_QUEUE_DEPTH", value: "5000" }, { name: "CONT_WHEN_CACHE_NOT_READY", value: "false" }],
    securityContext: { privileged: false, capabilities: { add: ["NET_ADMIN", "NET_RAW"] } },
    resources: { requests: { cpu: "100m", memory: "50Mi" } },
    volumeMounts: [
      { name: "run", mountPath: "/run/flannel" },
      { name: "flannel-cfg", mountPath: "/etc/kube-flannel/" },
      { name: "xtables-lock", mountPath: "/run/xtables.lock" },
    ],
  };
  const installCni = {
    name: "install-cni",
    image: ctx.images.flannel,
    command: ["/opt/bin/install-conf", "/etc/kube-flannel/cni-conf.json", `/etc/cni/net.d/${cniFile}`],
    volumeMounts: [
      { name: "cni", mountPath: "/etc/cni/net.d" },
      { name: "flannel-cfg", mountPath: "/etc/kube-flannel/" },
    ],
  };
  const podSpec: Record<string, unknown> = {
    hostNetwork: true,
    tolerations: tolerateAll,
    ...critical("system-node-critical"),
    serviceAccountName: "flannel",
    initContainers: [
      { name: "install-cni-plugin", image: ctx.images.flannelCni, command: ["cp"], args: ["-f", "/flannel", "/opt/cni/bin/flannel"], volumeMounts: [{ name: "cni-plugin", mountPath: "/opt/cni/bin" }] },
      installCni,
    ],
    containers: [flanneld],
    volumes: [
      { name: "run", hostPath: { path: "/run/flannel" } },
      { name: "cni", hostPath: { path: "/etc/cni/net.d" } },
      { name: "flannel-cfg", configMap: { name: "kube-flannel-cfg" } },
      { name: "cni-plugin", hostPath: { path: "/opt/cni/bin" } },
      { name: "xtables-lock", hostPath: { path: "/run/xtables.lock", type: "FileOrCreate" } },
    ],
  };
  return [
    {
      path: `manifests/00-namespace-${ns}.yaml`,
      purpose: `namespace ${ns} for flannel (privileged pod security: it configures host networking)`,
      objects: [{ apiVersion: "v1", kind: "Namespace", metadata: meta(ns, undefined, { "pod-security.kubernetes.io/enforce": "privileged" }) }],
    },
    { path: "manifests/flannel-config.yaml", purpose: `flannel network configuration (pod network ${ctx.def.spec.network.podCidr}, vxlan)`, objects: [config] },
    { path: "manifests/flannel.yaml", purpose: "flannel DaemonSet on every node (pod network and CNI config)", objects: [workload("DaemonSet", "kube-flannel-ds", ns, labels, podSpec)] },
    {
      path: "manifests/flannel-rbac.yaml",
      purpose: "flannel's service account and access to nodes and their pod CIDRs",
      objects: [
        serviceAccount("flannel", ns),
        {
          apiVersion: rbacV1,
          kind: "ClusterRole",
          metadata: meta("flannel", undefined),
          rules: [
            { apiGroups: [""], resources: ["pods"], verbs: ["get"] },
            { apiGroups: [""], resources: ["nodes"], verbs: ["get", "list", "watch"] },
            { apiGroups: [""], resources: ["nodes/status"], verbs: ["patch"] },
          ],
        },
        clusterRoleBinding("flannel", "flannel", [{ kind: "ServiceAccount", name: "flannel", namespace: ns }]),
      ],
    },
  ];
}
