// Deterministic YAML output: key order is insertion order, no line folding.
import { stringify } from "yaml";

export type K8sObject = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; [k: string]: unknown }; [k: string]: unknown };

export function toYaml(value: unknown): string {
  // No anchors/aliases: shared label objects must print in full for kubectl users and reviewers.
  return stringify(value, { lineWidth: 0, aliasDuplicateObjects: false });
}

export function toYamlDocuments(objects: readonly unknown[]): string {
  return objects.map(toYaml).join("---\n");
}

export function b64(s: string): string {
  return Buffer.from(s, "utf8").toString("base64");
}
