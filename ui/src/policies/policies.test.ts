import { describe, expect, it } from "vitest";
import { Text } from "@codemirror/state";
import { diffLines } from "./diff";
import { diagnostics } from "./PolicyPage";

describe("policy editor", () => {
  it("diffs two versions line by line", () => {
    const d = diffLines("package x\nallow := false\n", "package x\nallow := true\n");
    expect(d.filter((l) => l.kind !== "same")).toEqual([
      { kind: "remove", text: "allow := false" },
      { kind: "add", text: "allow := true" },
    ]);
    expect(diffLines("a\nb", "a\nb").every((l) => l.kind === "same")).toBe(true);
  });

  it("puts OPA's errors at their line and column", () => {
    const doc = Text.of(["package gitopshq.approval", "", "deny { x", "}"]);
    const [d] = diagnostics(doc, [
      { code: "rego_parse_error", message: "unexpected } token", location: { row: 4, col: 1 } },
    ]);
    expect(d.from).toBe(doc.line(4).from);
    expect(d.message).toBe("rego_parse_error: unexpected } token");
    expect(diagnostics(doc, [{ code: "x", message: "y", location: { row: 99, col: 1 } }])).toEqual([]);
  });
});
