import { afterEach, describe, expect, it, vi } from "vitest";
import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { setToken } from "../api/client";
import { fakeHub, ME, renderAt } from "../test-utils";
import { DeliveryModeSelect, withDeliveryMode, type ProjectEnvironment } from "./DeliveryModeSelect";

afterEach(() => vi.restoreAllMocks());

const ENV: ProjectEnvironment = {
  name: "production",
  namespacePattern: "{{ .tenant }}-prod",
  createNamespace: true,
  clusters: [
    { cluster: "eu-1", overrides: { storageClass: "gp3" }, deliveryMode: "argocd" },
    { cluster: "us-1", overrides: {}, deliveryMode: "flux" },
  ],
};

describe("delivery mode", () => {
  it("switches one cluster to direct delivery and keeps the rest of the environment, createNamespace too", async () => {
    setToken("t");
    const done = vi.fn();
    const calls = fakeHub({
      "GET /me": () => ({ json: ME }),
      "PUT /projects/p-1/environments/production": (body) => ({ json: body }),
    });
    renderAt(
      "/x",
      "/x",
      <DeliveryModeSelect base="/projects/p-1" env={ENV} cluster={ENV.clusters[0]} writable onDone={done} />,
    );
    const select = screen.getByRole("combobox", { name: "Delivery mode of eu-1 in production" });
    expect(select).toHaveValue("argocd");
    await userEvent.selectOptions(select, "Direct (the agent applies)");

    await vi.waitFor(() => expect(done).toHaveBeenCalled());
    const put = calls.find((c) => c.method === "PUT");
    expect(put?.body).toEqual({
      namespacePattern: "{{ .tenant }}-prod",
      createNamespace: true,
      clusters: [
        { cluster: "eu-1", overrides: { storageClass: "gp3" }, deliveryMode: "direct" },
        { cluster: "us-1", overrides: {}, deliveryMode: "flux" },
      ],
    });
  });

  it("shows the mode as text to readers, and the API's refusal to writers", async () => {
    setToken("t");
    fakeHub({
      "GET /me": () => ({ json: ME }),
      "PUT /projects/p-1/environments/production": () => ({
        status: 400,
        json: {
          status: 400,
          error: "invalid",
          message: "clusters[1].deliveryMode: must be one of argocd, flux, direct",
          errors: [{ field: "clusters[1].deliveryMode", reason: "must be one of argocd, flux, direct" }],
        },
      }),
    });
    const { unmount } = renderAt(
      "/x",
      "/x",
      <DeliveryModeSelect
        base="/projects/p-1"
        env={ENV}
        cluster={ENV.clusters[1]}
        writable={false}
        onDone={() => {}}
      />,
    );
    expect(screen.getByLabelText("Delivery mode of us-1 in production")).toHaveTextContent("Flux");
    expect(screen.queryByRole("combobox")).toBeNull();
    unmount();

    renderAt(
      "/x",
      "/x",
      <DeliveryModeSelect base="/projects/p-1" env={ENV} cluster={ENV.clusters[1]} writable onDone={() => {}} />,
    );
    await userEvent.selectOptions(
      screen.getByRole("combobox", { name: "Delivery mode of us-1 in production" }),
      "Argo CD",
    );
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent("clusters[1].deliveryMode: must be one of argocd, flux, direct");
  });

  it("defaults clusters without a mode to Argo CD in the body", () => {
    const env: ProjectEnvironment = {
      name: "dev",
      namespacePattern: "p",
      clusters: [{ cluster: "a" }, { cluster: "b" }],
    };
    expect(withDeliveryMode(env, "b", "direct").clusters).toEqual([
      { cluster: "a", overrides: {}, deliveryMode: "argocd" },
      { cluster: "b", overrides: {}, deliveryMode: "direct" },
    ]);
  });
});
