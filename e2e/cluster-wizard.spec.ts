import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { stringify } from "yaml";
import { exampleDefinition } from "../lib/cluster/example";
import { defaultKubernetesVersion, versionProfiles } from "../lib/cluster/versions";
import { e2eEnv } from "./env";
import { signIn } from "./pages/login-page";
import { WizardPage } from "./pages/wizard-page";

const keyDir = mkdtempSync(path.join(tmpdir(), "bootdeck-e2e-key-"));
execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "e2e", "-f", path.join(keyDir, "id")]);
const privateKey = readFileSync(path.join(keyDir, "id"), "utf8");
const fingerprint = execFileSync("ssh-keygen", ["-l", "-f", path.join(keyDir, "id.pub")], { encoding: "utf8" }).split(" ")[1]!;

const hostLines = Array.from({ length: 50 }, (_, i) => `192.0.2.${i + 10} ${i < 3 ? "master" : "worker"}${i === 7 ? " deploy zone=a" : ""}`);
const shot = (name: string) => path.join("test-results", "screenshots", `${name}.png`);

test.describe.configure({ mode: "serial" });

test("an admin creates a cluster with the wizard, sees field errors, exports, re-imports, edits and deletes it", async ({ page }) => {
  await signIn(page);
  // Other specs may have left clusters behind: this one only counts on its own.
  await expect(page.getByTestId("new-cluster")).toBeVisible();
  await expect(page.getByTestId("cluster-row-e2e-prod")).toHaveCount(0);
  await page.screenshot({ path: shot("01-cluster-list"), fullPage: true });
  await page.getByTestId("new-cluster").click();
  const wizard = new WizardPage(page);

  // Basics: a bad name is reported next to the field and blocks the next step.
  await wizard.field("name").fill("Bad Name");
  await wizard.next();
  await expect(wizard.error("name")).toContainText("DNS-1123 label");
  await wizard.expectStep("basics");
  await wizard.field("name").fill("e2e-prod");
  await wizard.field("api-type").selectOption("dns");
  await wizard.field("api-host").fill("api.e2e.example.com");
  await page.screenshot({ path: shot("02-wizard-basics"), fullPage: true });
  await wizard.next();

  // Network: overlapping CIDRs and a DNS IP outside the service network.
  await wizard.expectStep("network");
  await wizard.field("service-cidr").fill("10.2.0.0/24");
  await wizard.field("dns-ip").fill("10.9.0.10");
  await wizard.next();
  await expect(wizard.error("service-cidr")).toContainText("overlaps the pod CIDR");
  await expect(wizard.error("dns-ip")).toContainText("inside the service CIDR");
  await wizard.field("service-cidr").fill("10.3.0.0/24");
  await wizard.field("dns-ip").fill("");
  await expect(wizard.error("service-cidr")).toHaveCount(0);
  await page.screenshot({ path: shot("03-wizard-network"), fullPage: true });
  await wizard.next();

  // Hosts: paste 50 lines, one of them bad, then the key.
  await wizard.expectStep("hosts");
  await wizard.pasteHosts([...hostLines, "192.0.2.250 boss"]);
  await expect(page.getByTestId("paste-problems")).toContainText('line 51: role "boss" must be master or worker');
  await expect(page.getByTestId("host-count")).toContainText("(50: 3 masters)");
  await wizard.next();
  await expect(page.getByTestId("error-cred-0-key")).toContainText("is required");
  await wizard.setPrivateKey(privateKey);
  await page.getByTestId("host-4-address").fill("10.3.0.7");
  await wizard.next();
  await expect(page.getByTestId("error-host-4-address")).toContainText("inside the service CIDR");
  await page.getByTestId("host-4-address").fill("192.0.2.200");
  await page.screenshot({ path: shot("04-wizard-hosts"), fullPage: true });
  await wizard.next();

  // Binaries: checksums must be SHA-256.
  await wizard.expectStep("binaries");
  await wizard.field("base-url").fill("https://mirror.e2e.example.com/dl.k8s.io/release");
  await wizard.field("kubelet-sha").fill("not-a-checksum");
  await wizard.field("kubectl-sha").fill("b".repeat(64));
  await wizard.next();
  await expect(wizard.error("kubelet-sha")).toContainText("SHA-256");
  await wizard.field("kubelet-sha").fill("a".repeat(64));
  await wizard.next();

  // Review: the derived values, then save.
  await wizard.expectStep("review");
  await expect(page.getByTestId("review-api-service-ip-derived-")).toHaveText("10.3.0.1");
  await expect(page.getByTestId("review-dns-service-ip")).toHaveText("10.3.0.10");
  await expect(page.getByTestId("review-etcd-members-derived-")).toHaveText("master-1 (192.0.2.10), master-2 (192.0.2.11), master-3 (192.0.2.12)");
  await expect(page.getByTestId("review-api-endpoint")).toHaveText("https://api.e2e.example.com:6443");
  await page.screenshot({ path: shot("05-wizard-review"), fullPage: true });
  await wizard.save();

  await expect(page.getByTestId("cluster-name")).toHaveText("e2e-prod");
  await expect(page.getByTestId("detail-hosts").locator("tbody tr")).toHaveCount(50);
  await expect(page.getByTestId("detail-credentials")).toContainText(fingerprint);
  await expect(page.locator("body")).not.toContainText("PRIVATE KEY");
  await page.screenshot({ path: shot("06-cluster-detail"), fullPage: true });

  // Export: YAML with the fingerprint, never the key.
  const download = page.waitForEvent("download");
  await page.getByTestId("export-yaml").click();
  const yaml = readFileSync((await (await download).path())!, "utf8");
  expect(yaml).toContain("name: e2e-prod");
  expect(yaml).toContain(fingerprint);
  expect(yaml).not.toContain("PRIVATE KEY");

  // Delete with a typed confirmation.
  await expect(page.getByTestId("delete-cluster")).toBeDisabled();
  await page.getByTestId("delete-confirm").fill("e2e-prod");
  await page.getByTestId("delete-cluster").click();
  await page.waitForURL("**/clusters");
  await expect(page.getByTestId("new-cluster")).toBeVisible();
  await expect(page.getByTestId("cluster-row-e2e-prod")).toHaveCount(0);

  // Re-import the exported YAML; the key must be given again since the cluster was deleted.
  await page.getByTestId("import-cluster").click();
  await page.getByTestId("yaml-text").fill(yaml);
  await expect(page.getByTestId("yaml-valid")).toContainText("e2e-prod, 50 hosts");
  await page.getByTestId("import-submit").click();
  await expect(page.getByTestId("import-error")).toContainText("secrets.admin-key.privateKey");
  await page.getByTestId("secret-admin-key").fill(privateKey);
  await page.getByTestId("import-submit").click();
  await expect(page.getByTestId("cluster-name")).toHaveText("e2e-prod");

  // Edit: move a worker to another SSH port; the stored key is kept.
  await page.getByTestId("edit-cluster").click();
  const edit = new WizardPage(page);
  await edit.expectStep("basics");
  await edit.next();
  await edit.next();
  await page.getByTestId("host-10-port").fill("2222");
  await edit.next();
  await edit.next();
  await edit.save();
  await expect(page.getByTestId("detail-hosts").locator("tbody tr").nth(10)).toContainText("2222");

  await page.goto("/clusters");
  await expect(page.getByTestId("cluster-row-e2e-prod")).toContainText(defaultKubernetesVersion);
  await page.screenshot({ path: shot("07-cluster-list-with-cluster"), fullPage: true });

  await page.getByTestId("cluster-row-e2e-prod").getByRole("link", { name: "e2e-prod", exact: true }).click();
  await page.getByTestId("delete-confirm").fill("e2e-prod");
  await page.getByTestId("delete-cluster").click();
  await page.waitForURL("**/clusters");
  await expect(page.getByTestId("cluster-row-e2e-prod")).toHaveCount(0);
});

test("the wizard's details: rows are not red before they are left, placeholders follow the role, pastes are not added twice, mistyped addresses and upper-case digests, problems named and linked, leaving asks", async ({ page }) => {
  await signIn(page);
  await page.getByTestId("new-cluster").click();
  const wizard = new WizardPage(page);
  await wizard.field("name").fill("e2e-details");
  await wizard.next();
  await wizard.next();
  await wizard.expectStep("hosts");
  await wizard.setPrivateKey(privateKey);
  // Next with no hosts shows this step's problems; a blank row added now is not red until it is left.
  await wizard.next();
  await expect(page.getByTestId("error-hosts")).toBeVisible();
  await page.getByTestId("add-worker").click();
  await expect(wizard.host(0, "name")).toHaveAttribute("placeholder", "worker-1");
  await expect(page.getByTestId("error-host-0-address")).toHaveCount(0);
  await expect(wizard.host(0, "address")).not.toHaveClass(/input-error/);
  await page.getByTestId("add-master").click();
  await expect(wizard.host(1, "name")).toHaveAttribute("placeholder", "master-1");
  await wizard.host(0, "name").focus();
  await wizard.host(0, "address").focus(); // leaves the row's name field
  await page.getByTestId("add-worker").focus(); // and the row
  await expect(page.getByTestId("error-host-0-address")).toContainText("is required");
  // A mistyped dotted address is not a DNS name.
  await wizard.host(0, "name").fill("worker-1");
  await wizard.host(0, "address").fill("10.237.10.300");
  await expect(page.getByTestId("error-host-0-address")).toHaveText("is not a valid IPv4 address: four numbers from 0 to 255, separated by dots");
  await wizard.host(0, "address").fill("10.237.10.30");
  await wizard.host(1, "name").fill("master-1");
  await wizard.host(1, "address").fill("10.237.10.10");
  // Pasted lines that were added leave the box; an address already listed is not added again.
  await wizard.pasteHosts(["10.237.10.31 worker", "10.237.10.30 worker", "10.237.10.301 worker"]);
  await expect(page.getByTestId("host-count")).toContainText("(3: 1 masters)");
  await expect(page.getByTestId("paste-added")).toHaveText("1 host added; the 2 lines below stay in the box to fix.");
  await expect(page.getByTestId("paste-problems")).toContainText("line 2: 10.237.10.30 is already in the list");
  await expect(page.getByTestId("paste-problems")).toContainText("line 3: 10.237.10.301 is not a valid IPv4 address");
  await expect(page.getByTestId("paste-hosts")).toHaveValue("10.237.10.30 worker\n10.237.10.301 worker");
  await page.getByTestId("paste-add").click();
  await expect(page.getByTestId("host-count")).toContainText("(3: 1 masters)");
  await page.getByTestId("paste-hosts").fill("");
  await wizard.next();
  await wizard.expectStep("binaries");
  await wizard.field("base-url").fill("https://mirror.e2e.example.com/k8s/v1.32.9");
  // An upper-case digest is the same checksum.
  await wizard.field("kubelet-sha").fill("AB".repeat(32));
  await wizard.field("kubectl-sha").fill("cd".repeat(32));
  await wizard.next();
  await wizard.expectStep("review");
  await expect(page.getByTestId("review-problems")).toHaveCount(0);
  // Problems name hosts, not hosts[N]; warnings on the review lead to their field.
  await page.getByTestId("step-hosts").click();
  await wizard.host(2, "address").fill("10.237.10.10");
  await expect(page.getByTestId("error-host-2-address")).toHaveText("duplicates the address of host master-1");
  await wizard.host(2, "address").fill("10.237.10.32");
  await page.getByTestId("add-master").click();
  await wizard.host(3, "name").fill("master-2");
  await wizard.host(3, "address").fill("10.237.10.11");
  await wizard.next();
  await wizard.next();
  await wizard.expectStep("review");
  await expect(page.getByTestId("review-warnings")).not.toContainText("spec.");
  await expect(page.getByTestId("review-warning-0")).toHaveText("Hosts");
  await expect(page.getByTestId("review-warning-1")).toHaveText("API endpoint");
  await page.getByTestId("review-warning-0").click();
  await wizard.expectStep("hosts");
  await expect(page.getByTestId("add-master")).toBeFocused();
  await page.getByTestId("step-review").click();
  await page.getByTestId("review-warning-1").click();
  await wizard.expectStep("basics");
  await expect(wizard.field("api-type")).toBeFocused();
  // Leaving with unsaved changes asks; "Cancel" keeps the wizard, "OK" leaves.
  const dialogs: string[] = [];
  page.once("dialog", (d) => void (dialogs.push(d.message()), d.dismiss()));
  await page.getByTestId("nav-clusters").click();
  await wizard.expectStep("basics");
  page.once("dialog", (d) => void (dialogs.push(d.message()), d.accept()));
  await page.getByTestId("nav-clusters").click();
  await page.waitForURL("**/clusters");
  expect(dialogs).toEqual(["Leave without creating this cluster? What you entered will be lost.", "Leave without creating this cluster? What you entered will be lost."]);
  await expect(page.getByTestId("cluster-row-e2e-details")).toHaveCount(0);
});

test("an admin fills what a bootstrap needs beyond the hosts: cgroup v1, keepalived's VIP, flannel, the runtime and a private registry; its password is stored and never shown", async ({ page }) => {
  const caDir = mkdtempSync(path.join(tmpdir(), "bootdeck-e2e-ca-"));
  execFileSync("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", "/CN=e2e registry CA", "-days", "1", "-keyout", path.join(caDir, "ca.key"), "-out", path.join(caDir, "ca.crt")], { stdio: "ignore" });
  const ca = readFileSync(path.join(caDir, "ca.crt"), "utf8");
  const registryPassword = "e2e-registry-password-not-to-be-shown";
  await signIn(page);
  await page.getByTestId("new-cluster").click();
  const wizard = new WizardPage(page);

  // Basics: the supported versions are offered, each with the cgroup v1 choice.
  await wizard.field("name").fill("e2e-images");
  expect(await wizard.field("version").locator("option").evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value))).toEqual(versionProfiles.map((p) => p.defaultVersion));
  await wizard.field("version").selectOption("v1.34.4");
  await expect(wizard.field("allow-cgroup-v1")).toHaveCount(1);
  await wizard.field("version").selectOption(defaultKubernetesVersion);
  await wizard.field("allow-cgroup-v1").check();
  // keepalived's interface is asked for a VIP only.
  await expect(wizard.field("keepalived-iface")).toHaveCount(0);
  await wizard.field("api-type").selectOption("vip");
  await wizard.field("api-host").fill("192.0.2.250");
  await expect(wizard.field("vrrp-id")).toBeDisabled();
  await wizard.field("keepalived-iface").fill("eth 0");
  await wizard.next();
  await expect(wizard.error("keepalived-iface")).toContainText("network interface name");
  await wizard.field("keepalived-iface").fill("eth0");
  await wizard.next();

  // Network: flannel's interface and VXLAN port.
  await wizard.expectStep("network");
  await wizard.field("flannel-iface").fill("eth0");
  await wizard.field("vxlan-port").fill("70000");
  await wizard.next();
  await expect(wizard.error("vxlan-port")).toContainText("from 1 to 65535");
  await wizard.field("vxlan-port").fill("4789");
  await wizard.next();

  await wizard.expectStep("hosts");
  await wizard.pasteHosts(["192.0.2.10 master", "192.0.2.20 worker"]);
  await wizard.setPrivateKey(privateKey);
  await wizard.next();

  // Binaries & images: no pins; the runtime from a mirror, the cgroupfs driver; a registry with its CA
  // and a login. A user without a registry, and without a password, is reported at each field.
  await wizard.expectStep("binaries");
  await expect(page.getByTestId("step-binaries")).toHaveText("4. Binaries & images");
  await wizard.field("base-url").fill("https://mirror.e2e.example.com/dl.k8s.io/release");
  await wizard.field("runtime-source").selectOption("packages");
  await expect(page.getByTestId("runtime-section")).toContainText("crictl and the CNI plugins come from here even with packages");
  await wizard.field("runtime-source").selectOption("mirror");
  await wizard.field("runtime-mirror-url").fill("https://mirror.e2e.example.com/github.com");
  await wizard.field("cgroup-driver").selectOption("cgroupfs");
  await wizard.field("registry-username").fill("puller");
  await wizard.next();
  await expect(wizard.error("registry")).toContainText("is required when a registry CA or credentials are given");
  await expect(wizard.error("registry-password")).toContainText("is required with a registry user name");
  await wizard.field("registry").fill("registry.e2e.example.com:5000");
  await wizard.field("registry-ca").fill(ca);
  await wizard.field("registry-password").fill(registryPassword);
  await expect(wizard.error("registry")).toHaveCount(0);
  await expect(wizard.error("registry-password")).toHaveCount(0);
  await page.screenshot({ path: shot("05b-wizard-binaries-and-images"), fullPage: true });
  await wizard.next();

  // Review: each of them, and the password nowhere.
  await wizard.expectStep("review");
  await expect(page.getByTestId("review-problems")).toHaveCount(0);
  await expect(wizard.review("cgroup-v1-hosts")).toHaveText("allowed: the kubelet runs on them (failCgroupV1: false); preflight warns");
  await expect(wizard.review("api-endpoint")).toHaveText("https://192.0.2.250:6443");
  await expect(wizard.review("api-address-held-by")).toHaveText("keepalived on the masters, on eth0 (VRRP router id 51)");
  await expect(wizard.review("flannel")).toHaveText("VXLAN over eth0, UDP port 4789");
  await expect(wizard.review("checksums")).toHaveText("kubelet: its published .sha256; kubectl: its published .sha256");
  await expect(wizard.review("container-runtime")).toHaveText("containerd and runc from https://mirror.e2e.example.com/github.com; cgroupfs cgroup driver");
  await expect(wizard.review("images")).toHaveText("through registry.e2e.example.com:5000, its CA given, as puller (new password)");
  await expect(wizard.review("credentials")).toHaveText("admin-key (privateKey, new secret), registry (password, new secret)");
  await expect(page.getByTestId("review")).not.toContainText(registryPassword);
  await expect(page.getByTestId("review")).not.toContainText("BEGIN CERTIFICATE");
  await wizard.save();
  await expect(page.getByTestId("cluster-name")).toHaveText("e2e-images");
  await expect(page.locator("body")).not.toContainText(registryPassword);

  // The export has every field and the credential by name, never the password.
  const exported = async () => {
    const download = page.waitForEvent("download");
    await page.getByTestId("export-yaml").click();
    return readFileSync((await (await download).path())!, "utf8");
  };
  const yaml = await exported();
  for (const text of ["allowCgroupV1: true", "interface: eth0", "iface: eth0", "vxlanPort: 4789", "source: mirror", "mirrorUrl: https://mirror.e2e.example.com/github.com", "cgroupDriver: cgroupfs", "registry: registry.e2e.example.com:5000", "BEGIN CERTIFICATE", "username: puller", "credential: registry"])
    expect(yaml).toContain(text);
  expect(yaml).not.toContain(registryPassword);

  // Edit: every field comes back; the stored password is shown as stored, kept, and not sent again.
  await page.getByTestId("edit-cluster").click();
  const edit = new WizardPage(page);
  await edit.expectStep("basics");
  await expect(edit.field("allow-cgroup-v1")).toBeChecked();
  await expect(edit.field("keepalived-iface")).toHaveValue("eth0");
  await page.getByTestId("step-network").click();
  await expect(edit.field("flannel-iface")).toHaveValue("eth0");
  await expect(edit.field("vxlan-port")).toHaveValue("4789");
  await page.getByTestId("step-binaries").click();
  await expect(edit.field("cgroup-driver")).toHaveValue("cgroupfs");
  await expect(edit.field("registry-username")).toHaveValue("puller");
  await expect(edit.field("registry-password")).toHaveValue("");
  await expect(edit.field("registry-password")).toHaveAttribute("placeholder", "(stored)");
  await expect(page.getByTestId("images-section")).toContainText("Stored encrypted. Leave empty to keep it.");
  await page.getByTestId("step-hosts").click();
  // The registry's password is not an SSH credential.
  await expect(page.getByTestId("credential-1")).toHaveCount(0);
  await page.getByTestId("step-review").click();
  await expect(edit.review("images")).toHaveText("through registry.e2e.example.com:5000, its CA given, as puller (stored password)");
  const sent = page.waitForRequest((r) => r.method() === "PUT" && /\/api\/clusters\/[^/]+$/.test(r.url()));
  await edit.save();
  expect(JSON.parse((await sent).postData() ?? "{}").secrets).toEqual({});
  await expect(page.getByTestId("cluster-name")).toHaveText("e2e-images");
  expect(await exported()).toContain("credential: registry");

  await page.getByTestId("delete-confirm").fill("e2e-images");
  await page.getByTestId("delete-cluster").click();
  await page.waitForURL("**/clusters");
});

test("leaving an edited cluster asks first: a link, the browser's Back, closing the tab; unchanged, it leaves without asking", async ({ page }) => {
  // A cluster of its own, imported with the command line (its key file next to the cluster.yaml).
  const name = `e2e-edit-${randomBytes(3).toString("hex")}`;
  const def = exampleDefinition({ name, hosts: 3 });
  def.spec.credentials = [{ name: "admin-key", type: "privateKey", privateKeyFile: "id" }];
  writeFileSync(path.join(keyDir, `${name}.yaml`), stringify(def));
  execFileSync(path.resolve(__dirname, "../bin/bootdeck"), ["import", path.join(keyDir, `${name}.yaml`)], { env: { ...process.env, ...e2eEnv }, stdio: "ignore" });

  const asked: string[] = [];
  let answer: "leave" | "stay" = "stay";
  page.on("dialog", (d) => {
    asked.push(d.type() === "beforeunload" ? "(the browser's leave-page prompt)" : d.message());
    void (answer === "leave" ? d.accept() : d.dismiss());
  });
  const question = "Leave without saving your changes to this cluster?";
  await signIn(page);
  await page.getByTestId(`cluster-row-${name}`).getByRole("link", { name, exact: true }).click();
  await expect(page.getByTestId("cluster-name")).toHaveText(name);
  const clusterUrl = page.url();
  const editUrl = `${clusterUrl}/edit`;
  const wizard = new WizardPage(page);

  // Nothing changed: Back leaves without a question.
  await page.getByTestId("edit-cluster").click();
  await wizard.expectStep("basics");
  await page.goBack();
  await expect(page.getByTestId("cluster-name")).toHaveText(name);
  expect(asked).toEqual([]);

  // Changed: a link asks, and "Cancel" keeps the form and what was typed.
  await page.getByTestId("edit-cluster").click();
  await wizard.expectStep("basics");
  await wizard.field("api-port").fill("7443");
  await page.getByTestId("nav-clusters").click();
  await wizard.expectStep("basics");
  expect(page.url()).toBe(editUrl);
  expect(asked).toEqual([question]);

  // The browser's Back asks too; "Cancel" stays, the address back on the form.
  await page.goBack();
  await expect.poll(() => asked.length).toBe(2);
  await expect(page).toHaveURL(editUrl);
  await expect(wizard.field("api-port")).toHaveValue("7443");
  expect(asked[1]).toBe(question);
  // Still guarded after a cancelled Back: "OK" leaves, and the change is not saved.
  answer = "leave";
  await page.goBack();
  await expect(page.getByTestId("cluster-name")).toHaveText(name);
  await expect(page).toHaveURL(clusterUrl);
  expect(asked).toEqual([question, question, question]);
  await page.getByTestId("edit-cluster").click();
  await expect(wizard.field("api-port")).toHaveValue("6443");

  // Changed again, closing the tab (or reloading it) gets the browser's own prompt.
  answer = "stay";
  await wizard.field("api-port").fill("7443");
  await page.close({ runBeforeUnload: true });
  await expect.poll(() => asked.length).toBe(4);
  expect(asked[3]).toBe("(the browser's leave-page prompt)");
  expect(page.isClosed()).toBe(false);
});

test("signed-out visitors are sent to sign in, and a wrong password is refused", async ({ page }) => {
  await page.goto("/clusters/new");
  await page.waitForURL(/\/login\?next=%2Fclusters/);
  await page.getByTestId("login-username").fill("admin");
  await page.getByTestId("login-password").fill("wrong-password");
  await page.getByTestId("login-submit").click();
  await expect(page.getByTestId("login-error")).toHaveText("Wrong user name or password");
});
