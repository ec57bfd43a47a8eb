import "server-only";
// What a run's actions share: the definition it was planned from, its capabilities, the rendered
// asset set (secrets decrypted on use, in memory only) and, opened on first use, the cluster's API
// through an SSH tunnel to a master.
import { capabilitiesFor, type Capabilities } from "../assets/capabilities";
import type { ClusterDefinition } from "../cluster/definition";
import { deriveCluster, type Derived } from "../cluster/derive";
import { getDb } from "../db/client";
import type { EngineExecutor } from "./engine-executor";
import { adminCredentialsFrom, ClusterApi, type ClusterApiClient } from "./cluster-api";
import type { EngineHost } from "./targets";
import { assetContent } from "../assets/store";

type AssetRow = { id: string; path: string; content: string; sensitive: boolean; sha256: string };

export class RunResources {
  readonly derived: Derived;
  readonly caps: Capabilities;
  private readonly assetRows: Map<string, AssetRow>;
  private clusterApi: ClusterApiClient | undefined;
  private readonly masterApis = new Map<string, ClusterApiClient>();

  constructor(
    readonly definition: ClusterDefinition,
    assets: AssetRow[],
    private readonly executor: EngineExecutor,
    private readonly hosts: EngineHost[],
    readonly assetSetVersion: number | null,
    /** Tests give the actions a fake API; the engine opens the real one through the tunnel. */
    private readonly makeApi?: (r: RunResources, master?: EngineHost) => ClusterApiClient,
  ) {
    this.derived = deriveCluster(definition);
    this.caps = capabilitiesFor(definition.spec.kubernetes.version);
    this.assetRows = new Map(assets.map((a) => [a.path, a]));
  }

  get assetPaths(): string[] {
    return [...this.assetRows.keys()].sort();
  }

  hasAsset(path: string): boolean {
    return this.assetRows.has(path);
  }

  asset(path: string): string {
    const row = this.assetRows.get(path);
    if (!row) throw new Error(`asset ${path} is not in asset set v${this.assetSetVersion ?? "?"}: re-render the assets and plan a new run`);
    return assetContent(row);
  }

  get firstMaster(): EngineHost {
    const name = this.derived.masters[0]?.name;
    const h = this.hosts.find((x) => x.name === name);
    if (!h) throw new Error("the cluster has no first master");
    return h;
  }

  get masters(): EngineHost[] {
    return this.hosts.filter((h) => h.role === "master");
  }

  /** The cluster's API through a tunnel over the masters' SSH connections (first master first). */
  api(): ClusterApiClient {
    if (this.makeApi) return (this.clusterApi ??= this.makeApi(this));
    this.clusterApi ??= new ClusterApi({
      executor: this.executor,
      via: () => this.masters.map((m) => m.target),
      endpoint: { host: this.derived.apiEndpointHost, port: this.definition.spec.apiEndpoint.port },
      credentials: adminCredentialsFrom(this.asset("auth/kubeconfig")),
    });
    return this.clusterApi;
  }

  /**
   * One master's own API server (through that master's SSH connection, to its address), for what each
   * API server reports of itself: its metrics.
   */
  apiAt(master: EngineHost): ClusterApiClient {
    let api = this.masterApis.get(master.name);
    if (!api) {
      api = this.makeApi
        ? this.makeApi(this, master)
        : new ClusterApi({ executor: this.executor, via: () => [master.target], endpoint: { host: master.address, port: this.definition.spec.apiEndpoint.port }, credentials: adminCredentialsFrom(this.asset("auth/kubeconfig")) });
      this.masterApis.set(master.name, api);
    }
    return api;
  }

  async close(): Promise<void> {
    await this.clusterApi?.close();
    await Promise.all([...this.masterApis.values()].map((a) => a.close()));
  }
}

export async function loadRunResources(params: { assetSetId: string | null; definition: ClusterDefinition; executor: EngineExecutor; hosts: EngineHost[]; api?: (r: RunResources, master?: EngineHost) => ClusterApiClient }): Promise<RunResources> {
  const set = params.assetSetId
    ? await getDb().assetSet.findUnique({ where: { id: params.assetSetId }, select: { version: true, assets: { select: { id: true, path: true, content: true, sensitive: true, sha256: true } } } })
    : null;
  return new RunResources(params.definition, set?.assets ?? [], params.executor, params.hosts, set?.version ?? null, params.api);
}
