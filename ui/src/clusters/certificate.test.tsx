import { describe, expect, it } from "vitest";
import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import type { Cluster } from "../api/types";
import { setToken } from "../api/client";
import { fakeHub, ME, renderAt } from "../test-utils";
import { AgentCertificatePanel, CertificatePolicy } from "./Certificate";

const cluster: Cluster = {
  id: "c1",
  name: "prod-eu",
  labels: {},
  status: "Connected",
  capabilities: [],
  createdAt: "2026-11-01T00:00:00Z",
};
const valid = {
  serial: "5a3f0c11deadbeef5a3f0c11deadbeef",
  notBefore: "2026-11-27T00:00:00Z",
  notAfter: "2099-11-28T00:00:00Z",
  status: "valid",
};

describe("agent certificate", () => {
  it("shows the current certificate and an admin revokes it after confirming", async () => {
    setToken("t");
    let revoked = false;
    const calls = fakeHub({
      "GET /me": () => ({ json: ME }),
      "GET /clusters/c1/certificate": () => ({
        json: revoked
          ? { certificates: [{ ...valid, status: "revoked", revokedBy: "owner" }] }
          : { current: valid, certificates: [valid] },
      }),
      "POST /clusters/c1/certificate/revoke": () => {
        revoked = true;
        return { json: { revoked: [valid.serial] } };
      },
    });
    renderAt("/clusters/c1/settings", "/clusters/:id/settings", <AgentCertificatePanel cluster={cluster} />);
    expect(await screen.findByText(valid.serial)).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Revoke prod-eu's certificate" }));
    expect(calls.some((c) => c.method === "POST")).toBe(false);
    await userEvent.click(screen.getByRole("button", { name: "Confirm revoking prod-eu's certificate" }));
    expect(await screen.findByText(/No valid client certificate/)).toBeInTheDocument();
    expect(screen.getByText("revoked")).toBeInTheDocument();
    expect(calls.some((c) => c.method === "POST" && c.path === "/clusters/c1/certificate/revoke")).toBe(true);
  });

  it("offers no Revoke to a viewer", async () => {
    setToken("t");
    fakeHub({
      "GET /me": () => ({ json: { ...ME, role: "viewer", permissions: ["clusters:read"] } }),
      "GET /clusters/c1/certificate": () => ({ json: { current: valid, certificates: [valid] } }),
    });
    renderAt("/clusters/c1/settings", "/clusters/:id/settings", <AgentCertificatePanel cluster={cluster} />);
    expect(await screen.findByText(valid.serial)).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: /Revoke/ })).toBeNull();
  });

  it("an org admin requires certificates for the organization", async () => {
    setToken("t");
    const calls = fakeHub({
      "GET /me": () => ({ json: ME }),
      "GET /agent-ca": () => ({
        json: { requireCertificate: false, fingerprintSha256: "AB:CD:EF", certificatePem: "", notAfter: "" },
      }),
      "PUT /agent-ca": () => ({
        json: { requireCertificate: true, fingerprintSha256: "AB:CD:EF", certificatePem: "", notAfter: "" },
      }),
    });
    renderAt("/clusters", "/clusters", <CertificatePolicy />);
    const box = await screen.findByLabelText(/Agents must present a client certificate/);
    await userEvent.click(box);
    expect(calls.find((c) => c.method === "PUT")?.body).toEqual({ requireCertificate: true });
    expect(await screen.findByLabelText(/Agents must present a client certificate/)).toBeChecked();
  });
});
