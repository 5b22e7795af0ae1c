/**
 * @module bench/console-scale
 * The console page at the issue's scale, in Debian's chromium: 1,000 pending asks (ten agents) and an audit
 * log of 100,000 records. First render: from the navigation's start (the page's `performance.now()`) to the
 * first frame in which all 1,000 asks and the audit's first page are in the page. Filter: from the form's
 * submit to the frame after the table's rows are replaced — a selective filter (one tool, denied) and one
 * that matches nothing (the server reads all 100,000 lines). Anchor: the same browser showing the same
 * content as a static HTML page (the same asks' texts, the same rows, the same style sheet) — loading it,
 * and for a filter fetching the filtered rows from its server, which reads the same log with the same
 * query (`readAuditPage`, the server-side work ours does too) and sends them as HTML the page swaps in:
 * the floor of the same work.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { FileApprovalStore } from "../approvals/index.js";
import { type AskView, askView, readAuditPage, startConsole } from "../console/index.js";
import { STYLE } from "../console/pages.js";
import type { AuditRecord } from "../core/index.js";
import { TOKEN } from "../test-support/console.js";
import { launchChromium, signIn } from "../test-support/console-browser.js";
import { publishScaleAsks, SCALE_ASKS, SCALE_RECORDS, writeScaleLog } from "../test-support/console-scale.js";
import { fmt, p50p99, report, stats } from "./harness.js";

const ROUNDS = 15;
const PAGE_ROWS = 100;
const FILTERS = [
  { name: "one tool, denied", query: { tool: "shell", decision: "deny" } },
  { name: "no match (all 100,000 lines read)", query: { agent: "nobody" } },
] as const;

const html = (text: string) =>
  text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c] as string);

const askHtml = (a: AskView) =>
  `<li class="ask"><h4>${html(a.heading)}</h4>${a.fields
    .map(
      (f) =>
        `<div class="field"><span class="label">${html(f.label)}:</span><div class="quoted">${html(f.text)}</div></div>`,
    )
    .join("")}<p class="field">${html(a.sandbox)}</p></li>`;

const rowHtml = (r: AuditRecord) =>
  `<tr>${[r.time, r.tool, r.decision ?? "", r.rule ?? "", r.outcome, r.agent ?? "", "why"]
    .map((c) => `<td>${html(String(c))}</td>`)
    .join("")}</tr>`;

/** The anchor: the same asks and rows as one static page. */
function staticPage(asks: AskView[], rows: AuditRecord[]): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>anchor</title><link rel="stylesheet" href="/style.css"></head><body>
<div id="asks"><ol class="group-asks">${asks.map(askHtml).join("")}</ol></div>
<table id="audit-table"><tbody>${rows.map(rowHtml).join("")}</tbody></table>
</body></html>`;
}

/**
 * Serves `html` at /, the console's style sheet, and at `/rows?i=N` the rows of filter N read from the log
 * now (as our server reads them for each filter), as HTML.
 */
async function serveStatic(html: string, auditFile: string): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const i = /^\/rows\?i=(\d+)$/.exec(req.url ?? "")?.[1];
    const query = i === undefined ? undefined : FILTERS[Number(i)]?.query;
    if (query) {
      res.setHeader("Content-Type", "text/html; charset=utf-8");
      void readAuditPage(auditFile, { ...query }).then((page) => res.end(page.records.map(rowHtml).join("")));
      return;
    }
    const css = req.url === "/style.css";
    res.setHeader("Content-Type", css ? "text/css" : "text/html; charset=utf-8");
    res.end(css ? STYLE : html);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` };
}

/** Navigates to `url`; the page's time at the first frame holding `asks` asks and `rows` audit rows. */
async function firstRender(page: Page, url: string, asks: number, rows: number): Promise<number> {
  await page.goto(url, { waitUntil: "commit" });
  // A function, not a string: the console's CSP refuses eval in the page.
  const handle = await page.waitForFunction(
    ([n, m]) => {
      const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): { length: number } } })
        .document;
      const done =
        doc.querySelectorAll("#asks li.ask").length === n &&
        doc.querySelectorAll("#audit-table tbody tr").length === m;
      return done ? performance.now() : false;
    },
    [asks, rows] as const,
    { polling: "raf", timeout: 120_000 },
  );
  return (await handle.jsonValue()) as number;
}

/** In the page: runs `start`, then resolves with the time to the frame after the table's rows change. */
const TIMED_SWAP = `(start) => new Promise((resolve) => {
  const tbody = document.querySelector("#audit-table tbody");
  const t0 = performance.now();
  new MutationObserver((_, o) => { o.disconnect(); requestAnimationFrame(() => resolve(performance.now() - t0)); })
    .observe(tbody, { childList: true });
  start();
})`;

/** Our filter: the form filled and submitted; the rows the server sends replace the table's. */
async function ourFilter(page: Page, query: Record<string, string>): Promise<number> {
  const fill = Object.entries(query)
    .map(([k, v]) => `form.elements.namedItem(${JSON.stringify(k)}).value = ${JSON.stringify(v)};`)
    .join(" ");
  return (await page.evaluate(
    `(${TIMED_SWAP})(() => { const form = document.getElementById("audit-filter"); form.reset(); ${fill} form.requestSubmit(); })`,
  )) as number;
}

/** Back to the unfiltered first page (untimed), so the next filter replaces a full table. */
async function unfiltered(page: Page): Promise<void> {
  await page.evaluate(
    `(${TIMED_SWAP})(() => { const form = document.getElementById("audit-filter"); form.reset(); form.requestSubmit(); })`,
  );
}

const anchorFilter = async (page: Page, i: number) =>
  (await page.evaluate(
    `(${TIMED_SWAP})(() => fetch("/rows?i=${i}").then((r) => r.text()).then((rows) => { document.querySelector("#audit-table tbody").innerHTML = rows; }))`,
  )) as number;

const anchorReset = (page: Page, rows: string) =>
  page.evaluate(`document.querySelector("#audit-table tbody").innerHTML = ${JSON.stringify(rows)}`);

export default async function run(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "tg-bench-console-scale-"));
  const store = new FileApprovalStore({ dir: join(dir, "approvals") });
  const auditFile = join(dir, "audit.jsonl");
  writeScaleLog(auditFile);
  await publishScaleAsks(store);
  const running = await startConsole({ store, token: TOKEN, auditFile });
  const asks = (await store.list({ state: "pending" })).map(askView);
  const first = await readAuditPage(auditFile, {});
  const filtered = await Promise.all(FILTERS.map((f) => readAuditPage(auditFile, { ...f.query })));
  const anchor = await serveStatic(staticPage(asks, first.records), auditFile);
  const browser = await launchChromium();
  try {
    const ours = await signIn(browser, running.url, "bench");
    const plain = await (await browser.newContext()).newPage();
    const rendered: [number[], number[]] = [[], []];
    await firstRender(ours, running.url, SCALE_ASKS, PAGE_ROWS);
    await firstRender(plain, anchor.url, SCALE_ASKS, PAGE_ROWS);
    for (let i = 0; i < ROUNDS; i++) {
      rendered[0].push(await firstRender(ours, running.url, SCALE_ASKS, PAGE_ROWS));
      rendered[1].push(await firstRender(plain, anchor.url, SCALE_ASKS, PAGE_ROWS));
    }
    const [o, a] = [stats(rendered[0]), stats(rendered[1])];
    report({
      name: `console first render: ${SCALE_ASKS} pending asks + ${SCALE_RECORDS} audit records (first page of ${PAGE_ROWS}), chromium`,
      ours: p50p99(o),
      anchor: `the same content as a static page ${p50p99(a)}`,
      ratio: o.p50 / a.p50,
      target: `≤ 500 ms (p99 here ${fmt(o.p99)})`,
      pass: o.p99 <= 500,
    });
    const firstRows = first.records.map(rowHtml).join("");
    for (const [i, f] of FILTERS.entries()) {
      const times: [number[], number[]] = [[], []];
      for (let r = 0; r <= ROUNDS; r++) {
        await unfiltered(ours);
        const t = await ourFilter(ours, f.query);
        const shown = await ours.locator("#audit-table tbody tr").count();
        if (shown !== filtered[i]?.records.length)
          throw new Error(
            `filter ${f.name}: the page shows ${shown} rows, the log holds ${filtered[i]?.records.length}`,
          );
        await anchorReset(plain, firstRows);
        const u = await anchorFilter(plain, i);
        // The first round warms both up.
        if (r > 0) {
          times[0].push(t);
          times[1].push(u);
        }
      }
      const [fo, fa] = [stats(times[0]), stats(times[1])];
      report({
        name: `console audit filter over ${SCALE_RECORDS} records: ${f.name} (${filtered[i]?.records.length} rows shown)`,
        ours: p50p99(fo),
        anchor: `the same rows read by a plain server and swapped in as HTML ${p50p99(fa)}`,
        ratio: fo.p50 / Math.max(fa.p50, 0.001),
        target: `≤ 100 ms (p99 here ${fmt(fo.p99)})`,
        pass: fo.p99 <= 100,
      });
    }
  } finally {
    await browser.close();
    anchor.server.close();
    await running.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
