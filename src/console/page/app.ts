/**
 * @module console/page/app
 * The console page's script (bundled for the browser by scripts/bundle.mjs into dist/console/page/app.js;
 * type-checked with the DOM library by src/console/page/tsconfig.json). Everything from the server is put
 * into the page as text (`textContent`), never as HTML. Pending asks come from /api/approvals, then live from
 * /api/events; every request goes through `request` (page/request.ts), which carries the session
 * (page/session.ts), and the live stream through `openStream`.
 */
import { wireAudit } from "./audit.js";
import type { AskView } from "./dom.js";
import { listenForKeys } from "./keys.js";
import { show, showAll, tick } from "./pending.js";
import { request } from "./request.js";
import { onStop, openStream, requireSession, signedOut } from "./session.js";

const statusLine = document.getElementById("status") as HTMLSpanElement;
(document.getElementById("who") as HTMLSpanElement).textContent = requireSession().name;

async function loadPending(): Promise<void> {
  const body = await request<{ pending: AskView[] }>("/api/approvals").catch(() => undefined);
  if (body) showAll(body.pending);
}

// An answer that is not the console's stops the page (page/session.ts): it says so at the top, every
// button but "Sign in again" is disabled, and nothing more is sent.
onStop((reason) => {
  const banner = document.getElementById("stopped") as HTMLDivElement;
  (banner.querySelector(".reason") as HTMLElement).textContent = reason;
  banner.hidden = false;
  statusLine.textContent = "stopped: not the console";
  for (const control of document.querySelectorAll<HTMLButtonElement | HTMLInputElement>(
    "main button, main input, main select",
  ))
    control.disabled = true;
});
(document.getElementById("sign-in-again") as HTMLButtonElement).addEventListener("click", () => signedOut());

function connect(): void {
  openStream("/api/events", {
    events: {
      ready: () => void loadPending(),
      ask: (data) => show(JSON.parse(data) as AskView),
    },
    status: (state) => {
      if (state !== "stopped") statusLine.textContent = state === "live" ? "live" : "reconnecting…";
    },
  });
}

listenForKeys();
setInterval(tick, 1000);
connect();
wireAudit(document.getElementById("audit-filter") as HTMLFormElement);
