import { describe, expect, it } from "vitest";
import { rollbackScope } from "./ReleasesTab";

describe("rollback scope", () => {
  it("is all, or the entries that name something", () => {
    expect(rollbackScope(true, [])).toBe("all");
    expect(
      rollbackScope(false, [
        { environment: "staging", tenant: "acme", service: "" },
        { environment: "", tenant: "", service: "" },
        { environment: "", tenant: "", service: "web" },
      ]),
    ).toEqual([{ environment: "staging", tenant: "acme" }, { service: "web" }]);
  });
});
