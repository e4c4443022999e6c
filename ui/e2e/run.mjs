// End-to-end tests of the web UI in Debian's chromium (playwright-core, no browser download)
// against a real hub stack that tools/ui.sh e2e starts: PostgreSQL, Temporal, OPA, the hub with
// this UI in its jar, the demo cluster (a real kube-apiserver with kwok) and the demo agent.
//
//   GITOPSHQ_E2E_URL=http://127.0.0.1:PORT GITOPSHQ_E2E_TOKEN=<owner token> node e2e/run.mjs
//
// Each scenario is what a person does, found by role and label. Screenshots of the main pages go
// to test-results/screenshots/. The last line is "N passed, N failed".
import { chromium } from "playwright-core";
import { readFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { execFileSync } from "node:child_process";
import assert from "node:assert/strict";

const BASE = process.env.GITOPSHQ_E2E_URL;
const OWNER = process.env.GITOPSHQ_E2E_TOKEN;
if (!BASE || !OWNER) {
  console.error("GITOPSHQ_E2E_URL and GITOPSHQ_E2E_TOKEN are required (tools/ui.sh e2e sets them)");
  process.exit(2);
}
const IDP_PASSWORD = process.env.GITOPSHQ_E2E_IDP_PASSWORD;
// The stack's state directory (tools/ui.sh sets it): the demo agents' kubeconfigs are there.
const STATE = process.env.GITOPSHQ_E2E_STATE;
const SHOTS = "test-results/screenshots";
mkdirSync(SHOTS, { recursive: true });
const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const TIMEOUT = 60_000;

/** The REST API with a token, for the setup a scenario needs before the browser part. */
async function rest(token, method, path, body) {
  const res = await fetch(`${BASE}/api/v2${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body ? { "Content-Type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
});

async function signIn(token, width = 1280) {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(TIMEOUT);
  await page.goto(`${BASE}/`);
  await page.getByLabel("API token").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("navigation", { name: "Main" }).waitFor();
  return page;
}

/** axe-core on the current page: no serious or critical violations. */
async function accessible(page, what) {
  // Evaluated through the DevTools protocol, not as an inline <script>: the hub's
  // Content-Security-Policy refuses inline scripts, and these tests run the UI under it.
  await page.evaluate(AXE);
  const result = await page.evaluate(async () => await window.axe.run(document, { resultTypes: ["violations"] }));
  const bad = result.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  assert.deepEqual(
    bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`),
    [],
    `accessibility violations on ${what}`,
  );
}

async function shot(page, name) {
  await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
}

// --- setup shared by the scenarios -------------------------------------------------------------
const clusters = await rest(OWNER, "GET", "/clusters");
const demo = clusters.items.find((c) => c.name === "demo");
assert.ok(demo, "the stack has the demo cluster");
const approver = await rest(OWNER, "POST", "/members", {
  email: "approver@example.com",
  name: "Alex Approver",
  role: "admin",
});
const approverToken = (await rest(OWNER, "POST", `/members/${approver.id}/tokens`, { name: "e2e" })).token;
// Scale needs one approval by an admin or owner on the demo cluster.
await rest(OWNER, "PUT", `/clusters/${demo.id}/approval-policy`, {
  requireApproval: ["scale"],
  requiredApprovers: 1,
  approverRoles: ["admin", "owner"],
});

const scenarios = [];
const scenario = (name, fn) => scenarios.push({ name, fn });

scenario("register a cluster, and the demo agent is Connected", async () => {
  const page = await signIn(OWNER);
  await page.getByRole("link", { name: "Clusters" }).click();
  const row = page.getByRole("row").filter({ hasText: "Demo cluster" });
  await row.getByText("Connected").waitFor();
  await accessible(page, "Clusters");
  await shot(page, "clusters");
  await page.getByRole("button", { name: "Register cluster" }).click();
  const dialog = page.getByRole("dialog", { name: "Register cluster" });
  await dialog.getByLabel("Name", { exact: true }).fill("e2e-prod");
  await dialog.getByLabel("Environment").fill("production");
  await dialog.getByLabel("Labels").fill("tier=production");
  await dialog.getByRole("button", { name: "Register" }).click();
  const token = await dialog.getByLabel("Registration token").inputValue();
  assert.match(token, /^ghqa_reg_[0-9a-f]{64}$/);
  await dialog.getByText(/helm upgrade --install/).waitFor();
  await shot(page, "register-cluster");
  await dialog.getByRole("button", { name: "Done" }).click();
  await page.getByRole("row").filter({ hasText: "e2e-prod" }).getByText("Pending").waitFor();
  // At a phone's width the page does not scroll sideways: wide tables scroll inside their box.
  for (const path of ["/clusters", "/approvals", "/audit", "/policies"]) {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${BASE}${path}`);
    await page.getByRole("navigation", { name: "Main" }).waitFor();
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 390, `${path} is ${width} px wide at 390 px`);
  }
  await page.goto(`${BASE}/clusters`);
  await page.getByRole("row").filter({ hasText: "Demo cluster" }).waitFor();
  await shot(page, "clusters-390px");
  await page.context().close();
});

scenario(
  "a scale that needs approval: the requester cannot approve it, a second admin does, it completes",
  async () => {
    const owner = await signIn(OWNER);
    await owner.goto(`${BASE}/clusters/${demo.id}/commands`);
    const form = owner.getByRole("form", { name: "New command" });
    await form.getByLabel("Command type").selectOption("scale");
    await form.getByLabel("Namespace").fill("demo");
    await form.getByLabel("Deployment").fill("web");
    await form.getByLabel("Replicas").fill("3");
    await form.getByLabel("Reason").fill("e2e: more replicas");
    await form.getByRole("button", { name: "Request command" }).click();
    await form.getByRole("link", { name: /command/ }).click();
    await owner.getByText("pending approval", { exact: true }).first().waitFor();
    await owner.getByText(/four-eyes rules mean someone else must approve it/).waitFor();
    await owner.getByText(/require_approval by policy .* version \d+/).waitFor();
    const commandUrl = owner.url();
    await shot(owner, "command-pending");
    // The requester's inbox does not offer their own request.
    await owner.getByRole("link", { name: "Approvals" }).click();
    await owner.getByText("Nothing waits for you.").waitFor();
    await owner.context().close();

    const second = await signIn(approverToken);
    await second.getByRole("link", { name: "Approvals" }).click();
    const item = second.getByRole("article").filter({ hasText: "scale Deployment demo/web" });
    await item.waitFor();
    await accessible(second, "Approvals");
    await shot(second, "approvals");
    await item.getByLabel(/Comment/).fill("ok for the e2e run");
    await item.getByRole("button", { name: "Approve" }).click();
    await second.getByText("Nothing waits for you.").waitFor();
    await second.goto(commandUrl);
    await second.getByText("completed", { exact: true }).first().waitFor({ timeout: 90_000 });
    await second.getByText(/approver@example.com approved — “ok for the e2e run”/).waitFor();
    await shot(second, "command-completed");
    await second.context().close();
  },
);

scenario("the demo cluster's inventory: what the agent sees on the real API server", async () => {
  const page = await signIn(OWNER);
  await page.goto(`${BASE}/clusters/${demo.id}/inventory`);
  // The agent's first snapshot arrives a few seconds after it connects.
  const namespaces = page.getByRole("table", { name: "Namespaces" });
  await namespaces.getByRole("button", { name: "demo", exact: true }).waitFor({ timeout: 90_000 });
  await page.getByLabel("Kind").selectOption("Deployment");
  const resources = page.getByRole("table", { name: "Resources" });
  // demo-direct's shop-dev/web is on the same API server: the row of namespace demo.
  const web = resources
    .getByRole("row")
    .filter({ hasText: /^web/ })
    .filter({ has: page.getByRole("cell", { name: "demo", exact: true }) });
  await web.getByText(/\d+\/\d+ ready/).waitFor();
  // Inspect it live: the real controllers' ReplicaSet and Pods, and their events.
  await web.getByRole("button", { name: "web" }).click();
  const panel = page.getByRole("region", { name: "Deployment demo/web" });
  await panel
    .getByLabel("YAML")
    .getByText(/kind: "Deployment"/)
    .waitFor();
  await panel
    .getByRole("list", { name: "Related resources" })
    .getByRole("button", { name: /^ReplicaSet web-/ })
    .first()
    .waitFor();
  await panel.getByRole("list", { name: "Events" }).getByText("ScalingReplicaSet").first().waitFor();
  await panel.getByRole("cell", { name: "Available", exact: true }).waitFor();
  await shot(page, "resource-inspection");
  await panel.getByRole("button", { name: "Close" }).click();
  await page.getByLabel("Kind").selectOption("Pod");
  await resources
    .getByText(/^Running \d+\/\d+$/)
    .first()
    .waitFor({ timeout: 90_000 });
  await page.getByLabel("Kind").selectOption("");
  await accessible(page, "Inventory");
  await shot(page, "cluster-inventory");
  // No Argo CD runs beside the demo cluster, and nothing pretends one does.
  await page.getByRole("link", { name: "Argo CD" }).click();
  await page.getByText("No Argo CD application in this cluster.").waitFor();
  await accessible(page, "Argo CD");
  // The demo project's dev binding is delivered by Flux, whose GitRepository and Kustomization the
  // hub had the agent make at the seeded release: Flux's own status says it runs that release.
  let synced = false;
  for (let i = 0; i < 240 && !synced; i++) {
    const bindings = await rest(OWNER, "GET", `/clusters/${demo.id}/bindings`);
    synced = bindings.items.some((b) => b.project === "demo" && b.environment === "dev" && b.syncStatus === "Synced");
    if (!synced) await new Promise((r) => setTimeout(r, 1000));
  }
  assert.ok(synced, "Flux delivers the demo project's dev binding within 4 minutes");
  await page.getByRole("link", { name: "Bindings" }).click();
  const binding = page.getByRole("row").filter({ hasText: "dev" }).filter({ hasText: "demo" }).first();
  await binding.getByText("Synced", { exact: true }).waitFor();
  await binding.getByText("Flux flux-system/gitopshq-demo-dev-demo").waitFor();
  const wiring = page.getByRole("table", { name: "Adapter wiring" });
  await wiring.getByRole("row").filter({ hasText: "demo · dev · demo" }).getByText("wired", { exact: true }).waitFor();
  await wiring.getByText("Kustomization flux-system/gitopshq-demo-dev-demo").waitFor();
  await accessible(page, "Bindings");
  await shot(page, "cluster-bindings-flux");
  await page.getByRole("link", { name: "Inventory" }).click();
  await page.getByRole("button", { name: "Refresh" }).click();
  let audited = false;
  for (let i = 0; i < 20 && !audited; i++) {
    audited = JSON.stringify(await rest(OWNER, "GET", "/audit?action=inventory.refresh")).includes("inventory.refresh");
    if (!audited) await new Promise((r) => setTimeout(r, 500));
  }
  assert.ok(audited, "the refresh is audited");
  await page.context().close();
});

scenario("the demo agents' kubeconfigs are the agent chart's ServiceAccounts, not the cluster's admin", async () => {
  assert.ok(STATE, "GITOPSHQ_E2E_STATE names the stack's state directory");
  for (const [dir, account] of [
    ["demo-agent", "gitopshq-agent"],
    ["demo-direct-agent", "demo-direct-gitopshq-agent"],
  ]) {
    const kubectl = (...args) =>
      execFileSync("kubectl", ["--kubeconfig", `${STATE}/${dir}/kubeconfig`, ...args], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      });
    const who = JSON.parse(kubectl("auth", "whoami", "-o", "json"));
    assert.equal(who.status.userInfo.username, `system:serviceaccount:gitopshq-system:${account}`);
    assert.ok(!who.status.userInfo.groups.includes("system:masters"), `${dir} is not in system:masters`);
    // What the chart grants, and nothing an admin has. Only adapterWire (the demo agent, which
    // wires Flux) may write RBAC and make namespaces: to give each tenant what its fence allows.
    const can = (...a) => {
      try {
        return kubectl("auth", "can-i", ...a).trim();
      } catch (e) {
        return String(e.stdout).trim();
      }
    };
    const wires = dir === "demo-agent";
    assert.equal(
      can("create", "clusterrolebindings"),
      wires ? "yes" : "no",
      `${dir} ${wires ? "may" : "may not"} bind roles`,
    );
    assert.equal(
      can("bind", "clusterroles"),
      wires ? "yes" : "no",
      `${dir} ${wires ? "may" : "may not"} bind ClusterRoles`,
    );
    assert.equal(
      can("create", "namespaces"),
      wires ? "yes" : "no",
      `${dir} ${wires ? "may" : "may not"} create namespaces`,
    );
    assert.equal(can("impersonate", "serviceaccounts"), "no", `${dir} may not impersonate`);
    assert.equal(can("create", "roles", "-n", "shop-dev"), "no", `${dir} may not write Roles`);
    assert.equal(can("patch", "deployments", "-n", "shop-dev"), "yes", `${dir} may apply Deployments`);
    assert.equal(can("create", "secrets", "-n", "shop-dev"), "yes", `${dir} may sync a credential into shop-dev`);
  }
  // demo-direct's chart values narrow it: pod logs only in shop-dev (a Role there), no Argo CD writes.
  const direct = (...a) => {
    try {
      return execFileSync("kubectl", ["--kubeconfig", `${STATE}/demo-direct-agent/kubeconfig`, "auth", "can-i", ...a], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      }).trim();
    } catch (e) {
      return String(e.stdout).trim();
    }
  };
  assert.equal(direct("get", "pods", "--subresource=log", "-n", "shop-dev"), "yes");
  assert.equal(direct("get", "pods", "--subresource=log", "-n", "demo"), "no");
  assert.equal(direct("patch", "applications.argoproj.io", "-n", "argocd"), "no");
});

scenario(
  "the direct-mode demo cluster: its seeded release applied, a drift found, a credential synced, all on the chart's RBAC",
  async () => {
    const direct = (await rest(OWNER, "GET", "/clusters")).items.find((c) => c.name === "demo-direct");
    assert.ok(direct, "the stack has the demo-direct cluster");
    // Its agent runs with the ServiceAccount of the agent chart and announces what the chart grants it.
    for (const cap of ["direct.deploy", "credential.sync", "observe"])
      assert.ok(direct.capabilities.includes(cap), `demo-direct announces ${cap}`);
    const demoCaps = (await rest(OWNER, "GET", `/clusters/${demo.id}`)).capabilities;
    assert.deepEqual(
      [...demoCaps].sort(),
      [
        "adapter.wire",
        "argocd.read",
        "argocd.write",
        "credential.sync",
        "diagnostics.read",
        "direct.deploy",
        "kubernetes.restart",
        "kubernetes.scale",
        "observe",
        "token.rotate",
      ],
      "the demo agent announces every capability",
    );
    const page = await signIn(OWNER);
    await page.goto(`${BASE}/clusters/${direct.id}/direct-deploy`);
    // Release #1 of project shop, applied by the agent itself: the apply and the objects it placed.
    const applies = page.getByRole("table", { name: "Direct applies" });
    const apply = applies.getByRole("row").filter({ hasText: "shop" }).filter({ hasText: "dev" });
    await apply.getByText("succeeded", { exact: true }).first().waitFor({ timeout: 90_000 });
    await apply
      .getByText(/[1-9]\d* applied, 0 pruned/)
      .first()
      .waitFor();
    const placed = page.getByRole("list", { name: "Objects placed by direct deploys" });
    await placed.getByText("Deployment shop-dev/web").waitFor();
    await placed.getByText("Service shop-dev/web").waitFor();
    await accessible(page, "Direct deploy");
    await shot(page, "cluster-direct-deploy");
    // Web was scaled by hand after the release: the seeded check found it, field by field.
    const tabs = page.getByRole("navigation", { name: "Cluster tabs" });
    await tabs.getByRole("link", { name: "Drift" }).click();
    const findings = page.getByRole("table", { name: "Drift findings" });
    const finding = findings.getByRole("row").filter({ hasText: "Deployment shop-dev/web" });
    await finding.getByText("functional").waitFor({ timeout: 90_000 });
    await page.getByText(/Newest check .*[1-9]\d* objects: [1-9]\d* drifted/).waitFor();
    await finding.getByRole("button", { name: "Deployment shop-dev/web" }).click();
    const diffs = page.getByRole("table", { name: "Field differences" });
    const replicas = diffs.getByRole("row").filter({ hasText: "spec.replicas" });
    await replicas.getByText("2", { exact: true }).waitFor();
    await replicas.getByText("3", { exact: true }).waitFor();
    await accessible(page, "Drift");
    await shot(page, "cluster-drift");
    // The registry pull secret the seed assigned to shop-dev, synced by the agent.
    await tabs.getByRole("link", { name: "Credentials" }).click();
    const creds = page.getByRole("table", { name: "Credentials" });
    const cred = creds.getByRole("row").filter({ hasText: "shop-registry" });
    await cred.getByText("shop-dev", { exact: true }).waitFor();
    await cred.getByText("synced", { exact: true }).waitFor({ timeout: 90_000 });
    await accessible(page, "Credentials");
    await shot(page, "cluster-credentials");
    // Its binding: project shop, dev, tenant demo, last delivered by release #1.
    await tabs.getByRole("link", { name: "Bindings" }).click();
    const binding = page.getByRole("row").filter({ hasText: "shop" }).filter({ hasText: "dev" });
    await binding.getByText(/release #1 /).waitFor();
    await binding.getByText("Synced", { exact: true }).waitFor();
    await binding.getByText("applied by the agent (direct mode)").waitFor();
    await binding.getByText("at the last deployment").waitFor();
    await shot(page, "cluster-direct-bindings");
    await page.context().close();
  },
);

scenario("a policy with a syntax error shows OPA's line", async () => {
  const page = await signIn(OWNER);
  await page.getByRole("link", { name: "Policies", exact: true }).click();
  await page.getByRole("link", { name: "approval", exact: true }).click();
  await accessible(page, "Policy editor");
  const editor = page.locator(".cm-content").first();
  await editor.click();
  await page.keyboard.press("Control+A");
  await page.keyboard.press("Delete");
  await editor.pressSequentially('package gitopshq.approval\n\ndecision := {\n  "outcome": \n}\n', { delay: 0 });
  await page.getByRole("button", { name: "Publish" }).click();
  const errors = page.getByRole("alert", { name: "OPA errors" });
  await errors.waitFor();
  assert.match(await errors.innerText(), /line \d+, column \d+/);
  await shot(page, "policy-error");
  await page.context().close();
});

scenario("a release deployed to dev, promoted to staging, and rolled back with a scope", async () => {
  const projects = await rest(OWNER, "GET", "/projects");
  const project = projects.items.find((p) => p.name === "demo");
  assert.ok(project, "the stack has the demo project");
  // Staging is delivered by Flux too (into demo-staging): each deployment ends when Flux runs it.
  await rest(OWNER, "PUT", `/projects/${project.id}/environments/staging`, {
    clusters: [{ cluster: "demo", deliveryMode: "flux" }],
  });
  const page = await signIn(OWNER);
  await page.goto(`${BASE}/projects/${project.id}/releases`);
  const create = page.getByRole("form", { name: "Create release" });
  await create.getByLabel("Description").fill("e2e release");
  await create.getByLabel("First environment").selectOption("dev");
  await create.getByRole("button", { name: "Create release" }).click();
  // make run seeds a first release once Flux is ready: this one's number comes from the API.
  let mine;
  for (let i = 0; i < 20 && !mine; i++) {
    mine = (await rest(OWNER, "GET", `/projects/${project.id}/releases`)).items.find(
      (r) => r.description === "e2e release",
    );
    if (!mine) await new Promise((r) => setTimeout(r, 500));
  }
  assert.ok(mine, "the release was created");
  await page.getByRole("button", { name: new RegExp(`Release #${mine.number}\\b`) }).click();
  const deployments = page.getByRole("list", { name: `Deployments of release ${mine.number}` });
  await deployments.getByText("deployed", { exact: true }).first().waitFor({ timeout: 120_000 });
  await accessible(page, "Project releases");
  await page.getByRole("button", { name: "Promote" }).click();
  await page.getByRole("form", { name: "Promote release" }).getByRole("button", { name: "Promote" }).click();
  await deployments.getByText(/promote → staging/).waitFor();
  // The promotion's item holds its timeline (a list of its own), so its status badge may show twice.
  await deployments
    .locator("li")
    .filter({ hasText: "promote" })
    .getByText("deployed", { exact: true })
    .first()
    .waitFor({ timeout: 120_000 });
  await shot(page, "release-promoted");
  await page.getByRole("button", { name: "Roll back to this release" }).click();
  const rollback = page.getByRole("form", { name: "Roll back" });
  await rollback.getByLabel('Everything (scope "all")').uncheck();
  await rollback.getByLabel("Environment").fill("staging");
  await rollback.getByLabel("Tenant").fill("demo");
  await rollback.getByRole("button", { name: "Roll back" }).click();
  await page.getByRole("button", { name: new RegExp(`rollback of #${mine.number}\\b`) }).waitFor();
  const releases = await rest(OWNER, "GET", `/projects/${project.id}/releases`);
  const rb = releases.items.find((r) => r.kind === "rollback");
  assert.equal(rb.rollbackOf, mine.number);
  assert.deepEqual(rb.scope, [{ environment: "staging", tenant: "demo" }]);
  await shot(page, "release-rollback");
  await page.context().close();
});

scenario("audit: entries link to their objects and the chain verifies", async () => {
  const page = await signIn(OWNER);
  await page.getByRole("link", { name: "Audit" }).click();
  await page.getByText("command.completed").first().waitFor();
  await page.getByRole("button", { name: "Verify chain" }).click();
  await page.getByText(/Chain intact: \d+ entries checked/).waitFor();
  await accessible(page, "Audit");
  await shot(page, "audit");
  await page.getByLabel("Action").fill("cluster.created");
  await page.getByText("cluster.created").first().waitFor();
  await page
    .getByRole("link", { name: /^cluster / })
    .first()
    .click();
  await page.getByRole("navigation", { name: "Cluster tabs" }).waitFor();
  await page.context().close();
});

scenario("project configuration: values typed as YAML become a configuration commit", async () => {
  const project = (await rest(OWNER, "GET", "/projects")).items.find((p) => p.name === "demo");
  const before = (await rest(OWNER, "GET", `/projects/${project.id}`)).configRevision;
  const page = await signIn(OWNER);
  await page.goto(`${BASE}/projects/${project.id}/config`);
  const values = page.getByRole("region", { name: "Values" });
  await values.getByLabel("Workload").selectOption("web");
  await values.getByLabel("Tenant").selectOption("demo");
  await values.getByLabel("Environment").selectOption("dev");
  const editor = values.locator(".cm-content");
  await editor.click();
  await page.keyboard.press("Control+A");
  await page.keyboard.press("Delete");
  await editor.pressSequentially("replicaCount: 4\n", { delay: 0 });
  await values.getByRole("button", { name: "Save values" }).click();
  await values.getByText("Saved").waitFor();
  await accessible(page, "Project configuration");
  await shot(page, "project-config");
  const stored = await rest(OWNER, "GET", `/projects/${project.id}/values/web/demo/dev`);
  assert.deepEqual(stored.values, { replicaCount: 4 });
  assert.ok(
    (await rest(OWNER, "GET", `/projects/${project.id}`)).configRevision > before,
    "a new configuration revision",
  );
  await page.context().close();
});

scenario("the project's Fence tab shows the default fence, editable by the owner", async () => {
  const project = (await rest(OWNER, "GET", "/projects")).items.find((p) => p.name === "demo");
  const page = await signIn(OWNER);
  await page.goto(`${BASE}/projects/${project.id}/fence`);
  const form = page.getByRole("form", { name: "Edit the fence" });
  await form.waitFor();
  const fence = await rest(OWNER, "GET", `/projects/${project.id}/fence`);
  assert.equal(await form.getByLabel("Denied kinds").inputValue(), fence.deniedKinds.join("\n"));
  if (fence.default) await page.getByText("No admin has set this project's fence").waitFor();
  await accessible(page, "Project fence");
  await shot(page, "project-fence");
  await page.context().close();
});

scenario("sign in with SSO through the development OIDC provider, then sign out", async () => {
  assert.ok(IDP_PASSWORD, "GITOPSHQ_E2E_IDP_PASSWORD names the demo user's password");
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(TIMEOUT);
  await page.goto(`${BASE}/`);
  await page.getByRole("link", { name: "Sign in with SSO" }).click();
  // The provider's own login form: group platform-admins maps to the admin role.
  await page.getByLabel("Username").fill("demo");
  await page.getByLabel("Password").fill(IDP_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("navigation", { name: "Main" }).waitFor();
  await page.getByText("(admin)").waitFor();
  assert.ok(!page.url().includes("session_token"), "the session token does not stay in the address bar");
  const stored = await page.evaluate(() => ({ session: sessionStorage.length, local: localStorage.length }));
  assert.deepEqual(stored, { session: 1, local: 0 });
  await page.getByRole("link", { name: "Clusters" }).click();
  await page.getByRole("row").filter({ hasText: "Demo cluster" }).waitFor();
  await shot(page, "sso-signed-in");
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.getByLabel("API token").waitFor();
  await context.close();
});

scenario("a member's token is revoked from the People page and stops working at once", async () => {
  const m = await rest(OWNER, "POST", "/members", { email: "leaver@example.com", name: "Lee Leaver", role: "member" });
  const token = (await rest(OWNER, "POST", `/members/${m.id}/tokens`, { name: "laptop" })).token;
  await rest(token, "GET", "/clusters");
  const page = await signIn(OWNER);
  await page.getByRole("link", { name: "People" }).click();
  await page.getByRole("button", { name: "Tokens of leaver@example.com" }).click();
  const tokens = page.getByRole("table", { name: "Tokens of leaver@example.com" });
  await tokens.getByRole("row").filter({ hasText: "laptop" }).getByText("active").waitFor();
  await accessible(page, "People with a member's tokens");
  await shot(page, "people-tokens");
  await tokens.getByRole("button", { name: "Revoke laptop" }).click();
  await tokens.getByRole("row").filter({ hasText: "laptop" }).getByText("revoked").waitFor();
  const res = await fetch(`${BASE}/api/v2/clusters`, { headers: { Authorization: `Bearer ${token}` } });
  assert.equal(res.status, 401, "a revoked token is refused on the next request");
  await page.context().close();
});

scenario("an organization's admin points its notifications at a webhook", async () => {
  const page = await signIn(OWNER);
  await page.getByRole("link", { name: "Settings" }).click();
  await page.getByLabel("Webhook URL").fill("https://hooks.example.com/gitopshq");
  await page.getByLabel(/Signing secret/).fill("an-e2e-secret-of-16+");
  await page.getByLabel("approval.requested").check();
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await page.getByText("Events go to https://hooks.example.com/gitopshq").waitFor();
  const stored = await rest(OWNER, "GET", "/notifications");
  assert.deepEqual([stored.source, stored.events, stored.secretSet], ["organization", ["approval.requested"], true]);
  assert.ok(!JSON.stringify(stored).includes("an-e2e-secret"), "the secret never comes back");
  await page.getByRole("heading", { name: "Organizations" }).waitFor();
  await accessible(page, "Settings");
  await shot(page, "settings");
  await rest(OWNER, "DELETE", "/notifications");
  await page.context().close();
});

scenario(
  "the demo cluster's Log Streaming tab: a web pod's tail, then new lines, timestamps, pause, download",
  async () => {
    const page = await signIn(OWNER);
    await page.goto(`${BASE}/clusters/${demo.id}/logs`);
    const namespace = page.getByLabel("Namespace", { exact: true });
    await namespace.getByRole("option", { name: "demo", exact: true }).waitFor({ state: "attached", timeout: 90_000 });
    await namespace.selectOption("demo");
    const pod = page.getByLabel("Pod", { exact: true });
    const podOption = pod.getByRole("option", { name: /^web-/ }).first();
    await podOption.waitFor({ state: "attached", timeout: 90_000 });
    await pod.selectOption((await podOption.textContent()).trim());
    await page.getByLabel("Tail lines").fill("20");
    await page.getByRole("button", { name: "Start streaming" }).click();
    const terminal = page.getByRole("region", { name: "Log output" });
    // tools/dev/demo-cluster/pod-logs.sh writes a line a second: the tail, then new ones.
    await terminal
      .getByText(/level=(info|warn)/)
      .first()
      .waitFor({ timeout: 30_000 });
    await page.getByText(/^Streaming \(\d+ lines\)$/).waitFor();
    const before = Number((await page.getByText(/^Streaming \(\d+ lines\)$/).textContent()).match(/\d+/)[0]);
    await page.waitForFunction(
      (n) => Number(document.body.innerText.match(/Streaming \((\d+) lines\)/)?.[1] ?? 0) > n,
      before,
      { timeout: 30_000 },
    );
    await page.getByLabel("Timestamps").check();
    await terminal
      .getByText(/^\d{4}-\d\d-\d\dT/)
      .first()
      .waitFor();
    await page.getByRole("button", { name: "Pause" }).click();
    await page.getByText(/^Paused \(/).waitFor();
    const download = page.waitForEvent("download");
    await page.getByRole("button", { name: "Download" }).click();
    assert.match((await download).suggestedFilename(), /^web-.*\.log$/);
    await page.getByRole("button", { name: "Resume" }).click();
    await accessible(page, "Log Streaming");
    await shot(page, "cluster-logs");
    await page.getByRole("button", { name: "Stop" }).click();
    let audited = false;
    for (let i = 0; i < 20 && !audited; i++) {
      audited = JSON.stringify(await rest(OWNER, "GET", "/audit?action=cluster.logs")).includes('"endReason":"closed"');
      if (!audited) await new Promise((r) => setTimeout(r, 500));
    }
    assert.ok(audited, "the log session is audited when it ends");
    await page.context().close();
  },
);

let passed = 0;
let failed = 0;
for (const s of scenarios) {
  const start = Date.now();
  try {
    await s.fn();
    passed++;
    console.log(`ok    ${s.name} (${((Date.now() - start) / 1000).toFixed(1)} s)`);
  } catch (e) {
    failed++;
    console.log(
      `FAIL  ${s.name}\n      ${String(e?.stack ?? e)
        .split("\n")
        .slice(0, 6)
        .join("\n      ")}`,
    );
    for (const ctx of browser.contexts()) {
      for (const p of ctx.pages())
        await p.screenshot({ path: `${SHOTS}/failed-${passed + failed}.png`, fullPage: true }).catch(() => {});
      await ctx.close().catch(() => {});
    }
  }
}
await browser.close();
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
