import { afterEach, describe, expect, it, vi } from "vitest";

// xterm.js needs a canvas; what matters here is what the log terminal is built with.
const options: Record<string, unknown>[] = [];
vi.mock("@xterm/xterm", () => ({
  Terminal: class {
    buffer = { active: { viewportY: 0 } };
    constructor(o: Record<string, unknown>) {
      options.push(o);
    }
    loadAddon() {}
    open() {}
  },
}));
vi.mock("@xterm/addon-fit", () => ({
  FitAddon: class {
    fit() {}
  },
}));
vi.mock("@xterm/addon-search", () => ({ SearchAddon: class {} }));

import { createLogTerminal, logLinkHandler } from "./terminal";

const click = {} as MouseEvent;
const range = { start: { x: 1, y: 1 }, end: { x: 10, y: 1 } };

describe("links in log lines", () => {
  afterEach(() => vi.restoreAllMocks());

  it("the log terminal is built with the safe link handler, refusing non-http(s) links", () => {
    createLogTerminal(document.createElement("div"));
    expect(options.at(-1)?.linkHandler).toBe(logLinkHandler);
    expect(logLinkHandler.allowNonHttpProtocols).toBe(false);
  });

  it("never follows a javascript:, data:, vbscript:, file: or relative link from a log line", () => {
    const open = vi.spyOn(window, "open").mockReturnValue(null);
    for (const uri of [
      "javascript:alert(document.cookie)",
      "JavaScript:alert(1)",
      " javascript:alert(1)",
      "java\tscript:alert(1)",
      "data:text/html,<script>alert(1)</script>",
      "vbscript:msgbox(1)",
      "file:///etc/passwd",
      "blob:https://hub.example.com/1",
      "/api/v2/members",
      "//evil.example.com/x",
    ]) {
      logLinkHandler.activate(click, uri, range);
    }
    expect(open).not.toHaveBeenCalled();
  });

  it("opens an https link in a new tab that cannot reach back to the UI", () => {
    const open = vi.spyOn(window, "open").mockReturnValue(null);
    logLinkHandler.activate(click, "https://grafana.example.com/d/abc?from=now-1h", range);
    expect(open).toHaveBeenCalledWith("https://grafana.example.com/d/abc?from=now-1h", "_blank", "noopener,noreferrer");
  });
});
