/**
 * @module console/page/app
 * The console page's script (bundled for the browser by scripts/bundle.mjs into dist/console/page/app.js;
 * type-checked with the DOM library by src/console/page/tsconfig.json). Everything from the server is put
 * into the page as text (`textContent`), never as HTML. Pending asks come from /api/approvals, then live from
 * /api/events; every request goes through `request` (page/request.ts).
 */
import { wireAudit } from "./audit.js";
import type { AskView } from "./dom.js";
import { listenForKeys } from "./keys.js";
import { show, tick } from "./pending.js";
import { request } from "./request.js";

const statusLine = document.getElementById("status") as HTMLSpanElement;

async function loadPending(): Promise<void> {
  const body = await request<{ pending: AskView[] }>("/api/approvals");
  for (const ask of body.pending) show(ask);
}

function connect(): void {
  const events = new EventSource("/api/events");
  events.addEventListener("ready", () => {
    statusLine.textContent = "live";
    void loadPending();
  });
  events.addEventListener("ask", (event) => show(JSON.parse((event as MessageEvent).data) as AskView));
  events.addEventListener("error", () => {
    statusLine.textContent = "reconnecting…";
  });
}

listenForKeys();
setInterval(tick, 1000);
connect();
wireAudit(document.getElementById("audit-filter") as HTMLFormElement);
