// What an admin may configure as a receiver, and what a Slack-format delivery looks like.
import { describe, expect, it } from "vitest";
import { renderBody } from "./body";
import { createWebhookBody, updateWebhookBody } from "./schemas";
import { signBody, verifySignature } from "./sign";

const valid = { name: "ops", url: "https://hooks.example/bootdeck", events: ["run.failed"], secret: "0123456789abcdef0123" };

describe("a webhook's URL", () => {
  it("is http or https", () => {
    expect(createWebhookBody.safeParse(valid).success).toBe(true);
    expect(createWebhookBody.safeParse({ ...valid, url: "http://10.0.0.5:8080/x?y=1" }).success).toBe(true);
    for (const url of ["file:///etc/passwd", "ftp://hooks.example/", "gopher://hooks.example:70/", "javascript:alert(1)", "data:text/plain,x", "hooks.example/x", "//hooks.example/x"]) {
      const r = createWebhookBody.safeParse({ ...valid, url });
      expect(r.success, url).toBe(false);
    }
  });

  it("carries no password and no fragment", () => {
    const issues = (url: string) => createWebhookBody.safeParse({ ...valid, url }).error?.issues.map((i) => i.message);
    expect(issues("https://user:pw@hooks.example/")).toEqual(["must not contain a user name or password: the receiver checks the signature instead"]);
    expect(issues("https://hooks.example/#x")).toEqual(["must not contain a #fragment"]);
    expect(updateWebhookBody.safeParse({ url: "file:///x" }).success).toBe(false);
  });

  it("comes with a secret long enough to sign with, and at least one known event", () => {
    expect(createWebhookBody.safeParse({ ...valid, secret: "short" }).success).toBe(false);
    expect(createWebhookBody.safeParse({ ...valid, events: [] }).success).toBe(false);
    expect(createWebhookBody.safeParse({ ...valid, events: ["run.exploded"] }).success).toBe(false);
    expect(createWebhookBody.parse(valid)).toMatchObject({ format: "json", certificateDays: 14, enabled: true });
  });
});

describe("a delivery's body", () => {
  const facts = { id: "evt_x", type: "run.failed" as const, occurredAt: "2026-12-04T20:00:00.000Z", summary: "check run failed: failed on 1 of 4 hosts: <worker-1>", cluster: { id: "cl_x", name: "prod & co" }, path: "/clusters/cl_x/runs/run_y" };

  it("links to the dashboard's page when its public address is known", () => {
    expect(JSON.parse(renderBody("json", facts, 7, "https://bootdeck.example/base"))).toMatchObject({ schema: "bootdeck.webhook/v1", sequence: 7, url: "https://bootdeck.example/base/clusters/cl_x/runs/run_y" });
    expect(JSON.parse(renderBody("json", facts, 7, undefined)).url).toBeNull();
  });

  it("in the Slack format is a message with text and blocks, escaped as Slack's mrkdwn asks", () => {
    const slack = JSON.parse(renderBody("slack", facts, 1, "https://bootdeck.example")) as { text: string; blocks: { type: string; text?: { text: string } }[] };
    expect(slack.text).toBe("prod & co: check run failed: failed on 1 of 4 hosts: <worker-1>");
    expect(slack.blocks[0]!.text!.text).toBe(":x: *prod &amp; co: check run failed: failed on 1 of 4 hosts: &lt;worker-1&gt;*\n<https://bootdeck.example/clusters/cl_x/runs/run_y|Open in Bootdeck>");
    expect(slack.blocks[1]!.type).toBe("context");
  });

  it("is signed as GitHub signs: sha256= and the HMAC-SHA256 of the exact bytes", () => {
    // RFC 4231 test case 2: key "Jefe", data "what do ya want for nothing?".
    expect(signBody("Jefe", "what do ya want for nothing?")).toBe("sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    expect(verifySignature("Jefe", "what do ya want for nothing?", "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")).toBe(true);
    expect(verifySignature("Jefe", "what do ya want for nothing!", "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")).toBe(false);
    expect(verifySignature("Jefe", "x", undefined)).toBe(false);
  });
});
