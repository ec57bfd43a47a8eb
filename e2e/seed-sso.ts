// One cluster for the sign-in browser test, written straight into the test server's database:
//   node --conditions=react-server --import tsx e2e/seed-sso.ts → {"clusterId": …, "clusterName": …}
import { exampleDefinition } from "../lib/cluster/example";
import { createCluster } from "../lib/clusters/repository";
import { disconnectDb } from "../lib/db/client";
import { testKeyPair } from "../test/ssh-key";

async function main(): Promise<void> {
  try {
    const clusterName = `sso-${Date.now().toString(36)}`;
    const { id } = await createCluster({ definition: exampleDefinition({ name: clusterName, hosts: 4 }), secrets: { "admin-key": { privateKey: testKeyPair().private } } });
    console.log(JSON.stringify({ clusterId: id, clusterName }));
  } finally {
    await disconnectDb();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
