import { describe, expect, it } from "vitest";
import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { Cluster } from "../api/types";
import { setToken } from "../api/client";
import { fakeHub, ME, renderAt } from "../test-utils";
import { ClusterCredentialsTab } from "./ClusterCredentialsTab";
import { CredentialsPage } from "./CredentialsPage";
import { parseTargets } from "./types";

const cluster: Cluster = {
  id: "c1",
  name: "prod-eu",
  labels: {},
  status: "Connected",
  capabilities: ["observe", "credential.sync"],
  createdAt: "2026-11-01T00:00:00Z",
  environment: "production",
  provider: "eks",
};
const ADMIN = { ...ME, permissions: [...ME.permissions, "credentials:write"] };

describe("credentials", () => {
  it("shows the cluster's Credentials tab with the guide's columns and the error", async () => {
    setToken("t");
    fakeHub({
      "GET /me": () => ({ json: ME }),
      "GET /clusters/c1/credentials": () => ({
        json: {
          items: [
            {
              credentialId: "k1",
              name: "registry",
              type: "dockerconfigjson",
              namespace: "apps",
              status: "synced",
              lastSyncedAt: new Date().toISOString(),
              error: null,
              version: 2,
              syncedVersion: 2,
            },
            {
              credentialId: "k1",
              name: "registry",
              type: "dockerconfigjson",
              namespace: "kube-system",
              status: "failed",
              lastSyncedAt: null,
              error: "namespace kube-system is outside the agent's credentialSync.targets",
              version: 2,
              syncedVersion: null,
              deniedByPolicy: false,
            },
            {
              credentialId: "k1",
              name: "registry",
              type: "dockerconfigjson",
              namespace: "payments",
              status: "failed",
              lastSyncedAt: null,
              error: "denied by policy: credential registry (dockerconfigjson) may not be synced to namespace payments",
              version: 2,
              syncedVersion: null,
              deniedByPolicy: true,
            },
          ],
        },
      }),
    });
    renderAt("/clusters/c1/credentials", "/clusters/:id/:tab", <ClusterCredentialsTab cluster={cluster} />);
    const table = await screen.findByRole("table", { name: "Credentials" });
    for (const h of ["Credential", "Target Namespace", "Sync Status", "Last Synced", "Error"]) {
      expect(within(table).getByRole("columnheader", { name: h })).toBeInTheDocument();
    }
    const rows = within(table).getAllByRole("row");
    expect(within(rows[1]).getByText("synced")).toBeInTheDocument();
    expect(within(rows[2]).getByText("failed")).toBeInTheDocument();
    expect(within(rows[2]).getByText(/outside the agent's credentialSync.targets/)).toBeInTheDocument();
    expect(within(rows[2]).getByText("never")).toBeInTheDocument();
    expect(within(rows[2]).queryByRole("link", { name: "denied by policy" })).not.toBeInTheDocument();
    // A target the credentials policy denied says so, with the policy's reason, and links to it.
    expect(within(rows[3]).getByText("failed")).toBeInTheDocument();
    expect(within(rows[3]).getByRole("link", { name: "denied by policy" })).toHaveAttribute(
      "href",
      "/policies/credentials",
    );
    expect(within(rows[3]).getByText(/may not be synced to namespace payments/)).toBeInTheDocument();
  });

  it("says when nothing is synced and the agent lacks the capability", async () => {
    setToken("t");
    fakeHub({ "GET /me": () => ({ json: ME }), "GET /clusters/c1/credentials": () => ({ json: { items: [] } }) });
    renderAt(
      "/clusters/c1/credentials",
      "/clusters/:id/:tab",
      <ClusterCredentialsTab cluster={{ ...cluster, capabilities: ["observe"] }} />,
    );
    expect(await screen.findByText(/does not have the credential.sync capability/)).toBeInTheDocument();
  });

  it("creates a TLS credential from its form and never shows values back", async () => {
    setToken("t");
    const calls = fakeHub({
      "GET /me": () => ({ json: ADMIN }),
      "GET /credentials": () => ({ json: { items: [] } }),
      "GET /clusters": () => ({ json: { items: [cluster] } }),
      "POST /credentials": () => ({ status: 201, json: { id: "k2" } }),
    });
    renderAt("/credentials", "/credentials", <CredentialsPage />);
    const form = await screen.findByRole("form", { name: "New credential" });
    await userEvent.type(within(form).getByLabelText("Name"), "web-tls");
    await userEvent.selectOptions(within(form).getByLabelText("Type"), "tls");
    await userEvent.type(within(form).getByLabelText("Certificate (PEM)"), "CERT");
    await userEvent.type(within(form).getByLabelText("Private key (PEM)"), "KEY");
    await userEvent.click(within(form).getByRole("button", { name: "Create credential" }));
    await screen.findByText("No credentials yet.");
    expect(calls.find((c) => c.method === "POST")?.body).toEqual({
      name: "web-tls",
      type: "tls",
      description: "",
      data: { "tls.crt": "CERT", "tls.key": "KEY" },
    });
  });

  it("lists credentials with their targets and assigns clusters and namespaces", async () => {
    setToken("t");
    const calls = fakeHub({
      "GET /me": () => ({ json: ADMIN }),
      "GET /clusters": () => ({ json: { items: [cluster] } }),
      "GET /credentials": () => ({
        json: {
          items: [
            {
              id: "k1",
              name: "registry",
              type: "dockerconfigjson",
              description: "",
              version: 3,
              keys: [".dockerconfigjson"],
              fingerprint: null,
              createdAt: "2026-11-01T00:00:00Z",
              updatedAt: "2026-11-02T00:00:00Z",
              targets: [
                {
                  clusterId: "c1",
                  clusterName: "prod-eu",
                  namespace: "apps",
                  status: "pending",
                  lastSyncedAt: null,
                  error: null,
                  syncedVersion: null,
                  deniedByPolicy: false,
                },
                {
                  clusterId: "c1",
                  clusterName: "prod-eu",
                  namespace: "kube-system",
                  status: "failed",
                  lastSyncedAt: null,
                  error: "denied by policy: namespaces matching kube-* get no credentials",
                  syncedVersion: null,
                  deniedByPolicy: true,
                },
              ],
            },
          ],
        },
      }),
      "PUT /credentials/k1/assignments": () => ({ json: {} }),
    });
    renderAt("/credentials", "/credentials", <CredentialsPage />);
    const card = await screen.findByRole("article", { name: "Credential registry" });
    expect(within(card).getByText("keys: .dockerconfigjson")).toBeInTheDocument();
    expect(within(card).getByText("pending")).toBeInTheDocument();
    const denied = within(card)
      .getByText(/kube-system/)
      .closest("li")!;
    expect(within(denied).getByRole("link", { name: "denied by policy" })).toBeInTheDocument();
    expect(within(denied).getByText(/namespaces matching kube-\* get no credentials/)).toBeInTheDocument();
    await userEvent.click(within(card).getByRole("button", { name: "Assign clusters" }));
    const box = within(card).getByRole("textbox");
    expect(box).toHaveValue("prod-eu=apps,kube-system");
    await userEvent.clear(box);
    await userEvent.type(box, "prod-eu=apps,payments");
    await userEvent.click(within(card).getByRole("button", { name: "Save targets" }));
    await screen.findByRole("button", { name: "Assign clusters" });
    expect(calls.find((c) => c.method === "PUT")?.body).toEqual({
      assignments: [{ clusterId: "c1", namespaces: ["apps", "payments"] }],
    });
  });

  it("tells viewers where the status is instead of a form", async () => {
    setToken("t");
    fakeHub({ "GET /me": () => ({ json: { ...ME, role: "viewer", permissions: ["clusters:read"] } }) });
    renderAt("/credentials", "/credentials", <CredentialsPage />);
    expect(await screen.findByText(/needs the credentials:write permission/)).toBeInTheDocument();
    expect(screen.queryByRole("form")).not.toBeInTheDocument();
  });

  it("parses targets and names an unknown cluster", () => {
    expect(parseTargets("prod-eu = apps, web\n\n", [cluster])).toEqual([
      { clusterId: "c1", namespaces: ["apps", "web"] },
    ]);
    expect(() => parseTargets("staging=apps", [cluster])).toThrow("no cluster named staging");
  });
});
