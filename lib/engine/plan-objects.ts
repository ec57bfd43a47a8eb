// The API objects a plan writes, as data: which objects each rendered manifest holds (with the
// checksum of each), and the planned calls built from them. Secrets' values never enter a plan: it is
// shown to browsers; the runner takes them from the asset set and checks them against the checksum.
import { createHash } from "node:crypto";
import YAML from "yaml";
import { selfHostedObjectsInOrder } from "../assets/manifests";
import type { K8sObject } from "../assets/yaml-out";
import type { ObjectRef, PlannedApiCall } from "./plan";

/** One object of a rendered manifest: who it is, its checksum, and what a reviewer may see of it. */
export type IndexedObject = { ref: ObjectRef; sha256: string; body: Record<string, unknown>; secret: boolean };

/** What a plan needs to know of an asset: its checksum and size, and for a manifest the objects it holds. */
export type AssetEntry = { sha256: string; size: number; objects?: IndexedObject[] };
export type AssetIndex = ReadonlyMap<string, AssetEntry>;

export const refOf = (o: K8sObject): ObjectRef => ({ apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name, ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}) });

/** "ConfigMap kube-system/coredns", "Node worker-1". */
export const refLabel = (r: ObjectRef) => `${r.kind} ${r.namespace ? `${r.namespace}/` : ""}${r.name}`;

export const sameRef = (a: ObjectRef, b: ObjectRef) => a.apiVersion === b.apiVersion && a.kind === b.kind && a.name === b.name && (a.namespace ?? "") === (b.namespace ?? "");

/** The checksum of an object as rendered (its JSON); also recorded on objects an `apply` writes. */
export const objectSha = (o: unknown) => createHash("sha256").update(JSON.stringify(o)).digest("hex");

/** A Secret's (or a sensitive asset's) object as a reviewer sees it: every value of data and stringData shown as "(secret)". */
export function redacted(o: Record<string, unknown>): Record<string, unknown> {
  const hide = (m: unknown) => (m && typeof m === "object" ? Object.fromEntries(Object.keys(m).map((k) => [k, "(secret)"])) : m);
  return { ...o, ...("data" in o ? { data: hide(o.data) } : {}), ...("stringData" in o ? { stringData: hide(o.stringData) } : {}) };
}

/** The objects of one manifest's content, in document order. */
export function parseObjects(content: string): K8sObject[] {
  return YAML.parseAllDocuments(content)
    .map((d) => d.toJSON() as K8sObject)
    .filter((o) => o && o.kind);
}

export function indexObjects(content: string, sensitive: boolean): IndexedObject[] {
  return parseObjects(content).map((o) => {
    const secret = sensitive || o.kind === "Secret";
    // A Secret shows its keys; any other object of a sensitive asset only who it is.
    const body = o.kind === "Secret" ? redacted(o) : sensitive ? { apiVersion: o.apiVersion, kind: o.kind, metadata: o.metadata, content: "(hidden: from a sensitive asset)" } : o;
    return { ref: refOf(o), sha256: objectSha(o), body, secret };
  });
}

export const isManifest = (path: string) => path.startsWith("manifests/");

/** An asset index from plain contents (a render's output): every manifest's objects indexed. */
export function assetIndexFrom(assets: readonly { path: string; content: string; sensitive?: boolean }[]): Map<string, AssetEntry> {
  return new Map(
    assets.map((a) => [
      a.path,
      { sha256: createHash("sha256").update(a.content).digest("hex"), size: Buffer.byteLength(a.content, "utf8"), ...(isManifest(a.path) ? { objects: indexObjects(a.content, a.sensitive === true) } : {}) },
    ]),
  );
}

/** The objects of these manifests in the order they must be created (Namespaces, CRDs, RBAC, …), each with the asset it comes from. */
export function orderedObjects(assets: AssetIndex, paths: readonly string[]): { asset: string; object: IndexedObject }[] {
  const of = new Map<K8sObject, { asset: string; object: IndexedObject }>();
  const files = paths.map((path) => ({
    path,
    objects: (assets.get(path)?.objects ?? []).map((o) => {
      const stub: K8sObject = { apiVersion: o.ref.apiVersion, kind: o.ref.kind, metadata: { name: o.ref.name } };
      of.set(stub, { asset: path, object: o });
      return stub;
    }),
  }));
  return selfHostedObjectsInOrder(files).map((x) => of.get(x.object)!);
}

/** A call that writes an object of the asset set. */
export function assetCall(verb: "create" | "apply" | "patch", asset: string, o: IndexedObject, extra: Partial<PlannedApiCall> = {}): PlannedApiCall {
  return { id: `${verb} ${refLabel(o.ref)}`, verb, object: o.ref, body: o.body, asset, sha256: o.sha256, ...(o.secret ? { secret: true } : {}), when: "always", ...extra };
}

export const nodeRef = (name: string): ObjectRef => ({ apiVersion: "v1", kind: "Node", name });

/** A call on a Node (cordon, uncordon, drain, delete, a patch of its labels, a taint). */
export function nodeCall(verb: PlannedApiCall["verb"], name: string, extra: Partial<PlannedApiCall> = {}): PlannedApiCall {
  return { id: `${verb} Node ${name}`, verb, object: nodeRef(name), when: "always", ...extra };
}
