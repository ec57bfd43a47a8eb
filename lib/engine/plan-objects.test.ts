// What a plan holds of the objects it writes: who each is, the checksum of what is sent, and a body a
// reviewer may see — never a Secret's values; objects in the order they must be created.
import { describe, expect, it } from "vitest";
import { assetIndexFrom, indexObjects, objectSha, orderedObjects, parseObjects } from "./plan-objects";

const secret = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: kube-system\ntype: Opaque\ndata:\n  tls.key: c2VjcmV0LWtleS1ieXRlcw==\n";
const config = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: kube-system\ndata:\n  a: b\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: apps\n";

describe("the objects of a plan", () => {
  it("shows a Secret's keys, not its values, and checks what is sent by the checksum of the real object", () => {
    const [o] = indexObjects(secret, true);
    expect(o!.secret).toBe(true);
    expect(o!.body.data).toEqual({ "tls.key": "(secret)" });
    expect(JSON.stringify(o)).not.toContain("c2VjcmV0LWtleS1ieXRlcw==");
    expect(o!.sha256).toBe(objectSha(parseObjects(secret)[0]));
    expect(o!.ref).toEqual({ apiVersion: "v1", kind: "Secret", name: "s", namespace: "kube-system" });
  });

  it("shows any other object of a sensitive asset only by who it is", () => {
    const [o] = indexObjects(config, true);
    expect(o!.body).toEqual({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "kube-system" }, content: "(hidden: from a sensitive asset)" });
    expect(indexObjects(config, false)[0]!.body).toEqual(parseObjects(config)[0]);
  });

  it("orders the objects of several manifests as they must be created: Namespaces first", () => {
    const index = assetIndexFrom([
      { path: "manifests/a.yaml", content: config },
      { path: "manifests/b-secret.yaml", content: secret, sensitive: true },
      { path: "tls/ca.crt", content: "not a manifest" },
    ]);
    expect(index.get("tls/ca.crt")?.objects).toBeUndefined();
    expect(orderedObjects(index, ["manifests/a.yaml", "manifests/b-secret.yaml"]).map((x) => `${x.asset} ${x.object.ref.kind}`)).toEqual(["manifests/a.yaml Namespace", "manifests/b-secret.yaml Secret", "manifests/a.yaml ConfigMap"]);
  });
});
