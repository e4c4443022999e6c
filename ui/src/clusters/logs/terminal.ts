// The xterm.js terminal the Log Streaming tab writes into, behind a small interface so the tab can
// be tested without a canvas.
import { Terminal, type ILinkHandler } from "@xterm/xterm";
import { FitAddon } from "@xterm/addon-fit";
import { SearchAddon } from "@xterm/addon-search";
import "@xterm/xterm/css/xterm.css";
import { openExternal } from "../../components/links";

export interface LogTerminal {
  /** Appends text; with `follow` the view scrolls to the newest line, otherwise it stays put. */
  write(text: string, follow: boolean): void;
  clear(): void;
  findNext(term: string): boolean;
  findPrevious(term: string): boolean;
  scrollToBottom(): void;
  fit(): void;
  dispose(): void;
}

/**
 * What a click on a link in a log line does. A log line is the pod's text: an OSC 8 hyperlink in it
 * can name any URL, so only http(s) links are offered (whatever xterm.js's default is) and they
 * open in a new tab without access to this page; `javascript:` and every other scheme do nothing.
 */
export const logLinkHandler: ILinkHandler = {
  allowNonHttpProtocols: false,
  activate: (_event, uri) => {
    openExternal(uri);
  },
};

/** At most this many lines stay in the terminal's scrollback. */
export const SCROLLBACK = 10_000;

export function createLogTerminal(el: HTMLElement): LogTerminal {
  const term = new Terminal({
    convertEol: true,
    disableStdin: true,
    scrollback: SCROLLBACK,
    fontSize: 12,
    theme: { background: "#0f172a" },
    linkHandler: logLinkHandler,
  });
  const fit = new FitAddon();
  const search = new SearchAddon();
  term.loadAddon(fit);
  term.loadAddon(search);
  term.open(el);
  fit.fit();
  return {
    write: (t, follow) => {
      const y = term.buffer.active.viewportY;
      term.write(t, () => (follow ? term.scrollToBottom() : term.scrollToLine(y)));
    },
    clear: () => term.clear(),
    findNext: (q) => search.findNext(q),
    findPrevious: (q) => search.findPrevious(q),
    scrollToBottom: () => term.scrollToBottom(),
    fit: () => fit.fit(),
    dispose: () => term.dispose(),
  };
}
