import "server-only";
import { parseClusterYaml } from "../cluster/yaml";
import { ValidationError, conflict } from "../http/errors";
import { createCluster, findClusterIdByName, updateCluster } from "./repository";
import type { CredentialSecrets } from "./schemas";

/**
 * Imports cluster.yaml. The dashboard never reads secrets from files a YAML names
 * (privateKeyFile, …: those are for the CLI); secrets come with the request or stay as stored.
 */
export async function importClusterYaml(input: { yaml: string; secrets: CredentialSecrets; replace: boolean }) {
  const parsed = parseClusterYaml(input.yaml);
  if (!parsed.ok) throw new ValidationError(parsed.errors, parsed.warnings);
  const name = parsed.definition.metadata.name;
  const existing = await findClusterIdByName({ name });
  if (existing && !input.replace) throw conflict(`A cluster named "${name}" already exists; choose "replace" to update it from this file`);
  if (existing) {
    const { warnings, hostKeys } = await updateCluster({ id: existing, definition: parsed.definition, secrets: input.secrets });
    return { id: existing, created: false, warnings, hostKeys };
  }
  const { id, warnings } = await createCluster({ definition: parsed.definition, secrets: input.secrets });
  return { id, created: true, warnings, hostKeys: undefined };
}
