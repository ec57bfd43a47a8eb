// What a delivery carries: the event in Bootdeck's JSON schema (schemas.ts WebhookBody), or a message
// Slack's incoming webhooks (and Mattermost's, Rocket.Chat's) accept. Rendered once when the delivery
// is queued and stored as is, so every attempt and every redelivery sends, and signs, the same bytes.
import { BODY_SCHEMA, type WebhookBody, type WebhookFormat } from "./schemas";

export type EventFacts = Omit<WebhookBody, "schema" | "sequence" | "url"> & {
  /** The dashboard page it is about (/clusters/…), made absolute with BOOTDECK_PUBLIC_URL. */
  path: string | null;
};

export function renderBody(format: WebhookFormat, facts: EventFacts, sequence: number, publicUrl: string | undefined): string {
  const { path, ...rest } = facts;
  // Relative to the public address's own path (a dashboard served under /bootdeck/ keeps it).
  const url = path && publicUrl ? new URL(path.replace(/^\/+/, ""), publicUrl.endsWith("/") ? publicUrl : `${publicUrl}/`).toString() : null;
  const body: WebhookBody = { schema: BODY_SCHEMA, ...rest, sequence, url };
  return JSON.stringify(format === "slack" ? slackMessage(body) : body);
}

const icons: Record<string, string> = {
  "run.succeeded": ":white_check_mark:",
  "run.failed": ":x:",
  "run.needs-decision": ":raising_hand:",
  "backup.failing": ":warning:",
  "certificate.expiring": ":hourglass_flowing_sand:",
  "host.unreachable": ":electric_plug:",
  ping: ":wave:",
};

/** Slack's mrkdwn escapes: &, < and > only (https://api.slack.com/reference/surfaces/formatting#escaping). */
const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

function slackMessage(b: WebhookBody) {
  const title = `${icons[b.type] ?? ""} *${esc(b.cluster ? `${b.cluster.name}: ` : "")}${esc(b.summary)}*`.trim();
  const details: string[] = [];
  if (b.run?.failedHosts.length) details.push(`Failed hosts: ${esc(b.run.failedHosts.join(", "))}`);
  if (b.run?.durationSeconds != null) details.push(`Took ${Math.round(b.run.durationSeconds)} s`);
  if (b.backup) details.push(`${b.backup.failures} attempt${b.backup.failures === 1 ? "" : "s"} failed since the last good backup${b.backup.lastSuccessAt ? ` (${b.backup.lastSuccessAt})` : ""}`);
  if (b.url) details.push(`<${b.url}|Open in Bootdeck>`);
  return {
    // Notifications and clients without blocks show the text.
    text: `${b.cluster ? `${b.cluster.name}: ` : ""}${b.summary}`,
    blocks: [
      { type: "section", text: { type: "mrkdwn", text: [title, ...details].join("\n") } },
      { type: "context", elements: [{ type: "mrkdwn", text: esc(`Bootdeck · ${b.type} · ${b.occurredAt} · ${b.id}`) }] },
    ],
  };
}
