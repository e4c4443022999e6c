import { describe, expect, it, vi } from "vitest";
import { api, ApiError, getToken, onUnauthorized, query, setToken } from "./client";
import { fakeHub } from "../test-utils";

describe("api client", () => {
  it("keeps the token in sessionStorage only and sends it as a bearer token", async () => {
    const calls = fakeHub({ "GET /clusters": () => ({ json: { items: [] } }) });
    setToken("ghqp_abc");
    await api("/clusters");
    expect(calls[0].headers.Authorization).toBe("Bearer ghqp_abc");
    expect(sessionStorage.getItem("gitopshq.token")).toBe("ghqp_abc");
    expect(localStorage.length).toBe(0);
    setToken(null);
    expect(getToken()).toBeNull();
  });

  it("turns the hub's error shape into an ApiError naming the fields", async () => {
    fakeHub({
      "POST /clusters": () => ({
        status: 400,
        json: {
          status: 400,
          error: "invalid_request",
          message: "name: required",
          errors: [{ field: "name", reason: "required" }],
        },
      }),
    });
    const e = (await api("/clusters", { body: {} }).catch((x: unknown) => x)) as ApiError;
    expect(e).toBeInstanceOf(ApiError);
    expect(e.status).toBe(400);
    expect(e.errors).toEqual([{ field: "name", reason: "required" }]);
  });

  it("tells the app when the hub answers 401", async () => {
    fakeHub({
      "GET /me": () => ({ status: 401, json: { status: 401, error: "unauthorized", message: "unauthorized" } }),
    });
    const listener = vi.fn();
    const off = onUnauthorized(listener);
    await api("/me").catch(() => undefined);
    off();
    expect(listener).toHaveBeenCalledOnce();
  });

  it("builds query strings from the values that are set", () => {
    expect(query({ type: "scale", status: "", limit: 50, cursor: undefined })).toBe("?type=scale&limit=50");
    expect(query({})).toBe("");
  });
});
