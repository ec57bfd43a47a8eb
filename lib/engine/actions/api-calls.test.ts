// Reading an object before writing it: a read that meets no answer (an API server restarting beside
// the step) is tried again; a refusal is not. A write that met no answer is judged by reading again.
import { describe, expect, it } from "vitest";
import { APPLIED_ANNOTATION, readObject, sendApply, sendCreate } from "./api-calls";

function ctxWith(getJson: (path: string) => Promise<unknown>) {
  let calls = 0;
  const api = { getJson: async (path: string) => (calls++, getJson(path)) };
  return { ctx: { resources: { api: () => api }, signal: new AbortController().signal } as never, calls: () => calls };
}

const cm = { apiVersion: "v1", kind: "ConfigMap", name: "marker", namespace: "kube-system" };

describe("readObject", () => {
  it("tries a read again that met no answer or a 5xx, and returns what the API then says", async () => {
    const answers = [new Error("no answer from the API at 10.0.0.250:6443 within 10 s"), new Error("GET /api/v1/namespaces/kube-system/configmaps/marker: HTTP 503 etcd leader changed"), { metadata: { name: "marker" } }];
    const { ctx, calls } = ctxWith(async () => {
      const a = answers.shift();
      if (a instanceof Error) throw a;
      return a;
    });
    expect(await readObject(ctx, cm)).toEqual({ metadata: { name: "marker" } });
    expect(calls()).toBe(3);
  });

  it("does not repeat a refusal: a 403 is the answer", async () => {
    const { ctx, calls } = ctxWith(async () => {
      throw new Error("GET /api/v1/namespaces/kube-system/configmaps/marker: HTTP 403 forbidden");
    });
    await expect(readObject(ctx, cm)).rejects.toThrow(/HTTP 403/);
    expect(calls()).toBe(1);
  });
});

describe("sendCreate", () => {
  const planned = { key: "pivot/cluster", files: [], exec: [], api: [] };
  const call = { id: "marker", verb: "create" as const, object: cm, body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "marker", namespace: "kube-system" } } };

  it("a create that met no answer is read again: present when it happened, sent once more when not", async () => {
    for (const happened of [true, false]) {
      let stored = false;
      let posts = 0;
      const api = {
        getJson: async () => (stored ? { metadata: { name: "marker" } } : undefined),
        request: async () => {
          posts++;
          if (posts === 1) {
            stored = happened;
            throw new Error("no answer from the API at 10.0.0.250:6443 within 10 s");
          }
          stored = true;
          return { status: 201, body: "{}" };
        },
      };
      const ctx = { planned, resources: { api: () => api, asset: () => "" }, signal: new AbortController().signal } as never;
      expect(await sendCreate(ctx, call as never)).toBe(happened ? "present" : "created");
      expect(posts).toBe(happened ? 1 : 2);
    }
  });
});

describe("sendApply", () => {
  const planned = { key: "control-plane/add-ons", files: [], exec: [], api: [] };
  const call = { id: "marker", verb: "apply" as const, object: cm, body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "marker", namespace: "kube-system" }, data: { v: "2" } } };

  it("a replace that met no answer is read again: left alone when it landed, sent once more when not", async () => {
    for (const landed of [true, false]) {
      let annotation = "old";
      let puts = 0;
      const api = {
        getJson: async () => ({ metadata: { name: "marker", resourceVersion: String(puts), annotations: { [APPLIED_ANNOTATION]: annotation } } }),
        request: async (_path: string, opts: { method: string; body: { metadata: { annotations: Record<string, string> } } }) => {
          expect(opts.method).toBe("PUT");
          puts++;
          const sent = opts.body.metadata.annotations[APPLIED_ANNOTATION]!;
          if (puts === 1) {
            if (landed) annotation = sent;
            throw new Error("no answer from the API at 10.0.0.250:6443 within 10 s");
          }
          annotation = sent;
          return { status: 200, body: "{}" };
        },
      };
      const ctx = { planned, resources: { api: () => api, asset: () => "" }, signal: new AbortController().signal } as never;
      expect(await sendApply(ctx, call as never)).toBe(landed ? "unchanged" : "replaced");
      expect(puts).toBe(landed ? 1 : 2);
    }
  });

  it("a write that meets no answer twice fails with it", async () => {
    const api = {
      getJson: async () => undefined,
      request: async () => {
        throw new Error("no answer from the API at 10.0.0.250:6443 within 10 s");
      },
    };
    const ctx = { planned, resources: { api: () => api, asset: () => "" }, signal: new AbortController().signal } as never;
    await expect(sendApply(ctx, call as never)).rejects.toThrow("no answer from the API");
  });
});
