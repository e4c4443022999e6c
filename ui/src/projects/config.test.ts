import { describe, expect, it } from "vitest";
import { valuesToYaml, variableBody, yamlToValues } from "./configForms";

describe("project configuration forms", () => {
  it("turns the YAML editor's text into the values object the API takes, and back", () => {
    expect(yamlToValues("replicaCount: 3\nimage:\n  tag: '1.4.2'\n")).toEqual({
      replicaCount: 3,
      image: { tag: "1.4.2" },
    });
    expect(yamlToValues("   ")).toEqual({});
    expect(yamlToValues(valuesToYaml({ a: { b: [1, 2] } }))).toEqual({ a: { b: [1, 2] } });
    expect(valuesToYaml({})).toBe("");
  });

  it("refuses YAML that is not a mapping, not YAML, or an alias bomb, saying why", () => {
    expect(() => yamlToValues("- a\n- b\n")).toThrow("values must be a YAML mapping");
    expect(() => yamlToValues("a: [1, 2\n")).toThrow("values are not valid YAML");
    expect(() => yamlToValues("a: 1\na: 2\n")).toThrow("values are not valid YAML");
    let bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
    for (let i = 1; i <= 9; i++)
      bomb += `a${i}: &a${i} [${Array(10)
        .fill(`*a${i - 1}`)
        .join(", ")}]\n`;
    expect(() => yamlToValues(bomb)).toThrow();
  });

  it("sends exactly the field a variable's scope needs", () => {
    const base = { environment: "production", tenant: "acme", service: "web", key: "DOMAIN", value: "shop.example" };
    expect(variableBody({ ...base, scope: "project" })).toEqual({
      scope: "project",
      key: "DOMAIN",
      value: "shop.example",
    });
    expect(variableBody({ ...base, scope: "tenant" })).toEqual({
      scope: "tenant",
      tenant: "acme",
      key: "DOMAIN",
      value: "shop.example",
    });
    expect(variableBody({ ...base, scope: "environment" })).toEqual({
      scope: "environment",
      environment: "production",
      key: "DOMAIN",
      value: "shop.example",
    });
  });
});
