import { parse, stringify } from "yaml";

/** YAML typed into an editor as the JSON object the API takes; an error names the problem. */
export function yamlToValues(text: string): Record<string, unknown> {
  if (text.trim() === "") return {};
  let parsed: unknown;
  try {
    // maxAliasCount: a few anchors are fine, an alias bomb is not (the hub refuses them too).
    parsed = parse(text, { maxAliasCount: 50, uniqueKeys: true });
  } catch (e) {
    throw new Error(`values are not valid YAML: ${e instanceof Error ? e.message.split("\n")[0] : String(e)}`, {
      cause: e,
    });
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new Error("values must be a YAML mapping (key: value), not a list or a single value");
  }
  return parsed as Record<string, unknown>;
}

/** Values as YAML for the editor. */
export function valuesToYaml(values: Record<string, unknown> | null | undefined): string {
  return values && Object.keys(values).length > 0 ? stringify(values) : "";
}

export type VariableScope = "project" | "environment" | "tenant" | "service";

export interface VariableForm {
  scope: VariableScope;
  environment: string;
  tenant: string;
  service: string;
  key: string;
  value: string;
}

/** The body of PUT /projects/{id}/variables: exactly the field the scope needs. */
export function variableBody(f: VariableForm): Record<string, string> {
  const body: Record<string, string> = { scope: f.scope, key: f.key, value: f.value };
  if (f.scope !== "project") body[f.scope] = f[f.scope];
  return body;
}
