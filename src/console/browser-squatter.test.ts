/**
 * The console's port taken over after the console stopped (red team F5), in Debian's chromium: an open,
 * signed-in tab reconnects to whoever holds the port now. A real squatter server on that very port answers
 * it as each row of testdata/squatter-cases.json says — unsealed, sealed with the session secret the tab
 * sent it, seals of the right shape, a 401, an error page. Every time the tab says the server is not the
 * console, shows nothing it sent, stays where it is (no sign-in form of the squatter's), and sends nothing
 * more — not the audit view's reload, not an answer — and nothing it sent the squatter holds the sealing
 * key. A console restarted on the same port is refused the same way (it cannot prove the old session).
 */
import { createHmac, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FileApprovalStore } from "../approvals/index.js";
import { ask, TOKEN } from "../test-support/console.js";
import { launchChromium, signIn } from "../test-support/console-browser.js";
import { type RunningConsole, startConsole } from "./index.js";
import cases from "./testdata/squatter-cases.json" with { type: "json" };

const NOT_THE_CONSOLE = "The server answering at this address is not the console this tab signed in to";
const FAKE_HEADING = "squatter-made ask: approve me";

/** An ask view as the console would send it, headed so the test can look for it. */
function fakeAsk(): string {
  return JSON.stringify({
    id: "00000000-0000-4000-8000-000000000000",
    tool: "shell",
    agent: null,
    worker: null,
    process: null,
    project: null,
    state: "pending",
    createdAt: Date.now(),
    expiresAt: Date.now() + 600_000,
    heading: FAKE_HEADING,
    fields: [],
    sandbox: "sandbox: none",
    settled: null,
    always: null,
    unseen: null,
  });
}

type Row = (typeof cases.cases)[number];

/** A seal as the row's rule makes it: with the bearer secret the request carried, or random, or none. */
function sealFor(row: Row, req: IncomingMessage, parts: (string | number)[]): string | undefined {
  if (row.seal === "none") return undefined;
  if (row.seal === "random") return randomBytes(32).toString("base64url");
  const secret = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1] ?? "";
  return createHmac("sha256", Buffer.from(secret, "base64url")).update(parts.join("\n")).digest("base64url");
}

/** The squatter: answers every request on 127.0.0.1:`port` as `row` says, recording each request. */
async function squat(port: number, row: Row): Promise<{ server: Server; seen: IncomingMessage[] }> {
  const seen: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    seen.push(req);
    const nonce = String(req.headers["x-console-nonce"] ?? "");
    res.statusCode = row.status;
    res.setHeader("Content-Type", row.contentType);
    if ("frames" in row && row.frames) {
      const frames = row.frames.map(([event, data], seq) => {
        const body = (data as string).replace("FAKE_ASK", fakeAsk());
        const seal = sealFor(row, req, [nonce, seq, event as string, body]);
        return `event: ${event}\ndata: ${body}\n${seal ? `seal: ${seq}.${seal}\n` : ""}\n`;
      });
      res.end(frames.join(""));
      return;
    }
    const body = (row.body ?? "").replace("FAKE_ASK", fakeAsk());
    const seal = sealFor(row, req, [nonce, row.status, body]);
    if (seal) res.setHeader("X-Console-Seal", seal);
    res.end(body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
  return { server, seen };
}

let browser: Browser;
let dir: string;
let store: FileApprovalStore;

/** A console, a tab signed in to it and live with one real ask shown, and the console stopped. */
async function tabLeftOpen(): Promise<{ page: Page; running: RunningConsole; key: string }> {
  const running = await startConsole({ store, token: TOKEN });
  const page = await signIn(browser, running.url, "alice");
  await store.publish(ask({ callId: `real-${running.port}` }));
  await page.locator("#asks li.ask").first().waitFor({ timeout: 60_000 });
  const stored = (await page.evaluate("sessionStorage.getItem('toolgate-console-session')")) as string;
  await running.close();
  return { page, running, key: (JSON.parse(stored) as { key: string }).key };
}

/** The tab says it is not the console, stopped, where it was, showing nothing of the squatter's. */
async function expectStopped(page: Page, url: string): Promise<void> {
  const banner = page.getByRole("alert").filter({ hasText: NOT_THE_CONSOLE });
  await banner.waitFor({ timeout: 60_000 });
  await expect.poll(() => page.locator("#status").textContent()).toBe("stopped: not the console");
  expect(page.url()).toBe(url);
  expect(await page.getByText(FAKE_HEADING).count()).toBe(0);
  expect(await page.getByRole("button", { name: "Approve", exact: true }).first().isDisabled()).toBe(true);
}

/** Asks the tab to reload the audit view (its button is disabled: the form is submitted as its code would). */
async function tryToSend(page: Page): Promise<void> {
  await page.evaluate("document.getElementById('audit-filter').requestSubmit()");
  await expect
    .poll(() => page.locator("#audit-file").textContent())
    .toContain(`Not loaded: ${NOT_THE_CONSOLE}`);
}

describe("a console tab whose port someone else holds now (red team F5)", () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "tg-squatter-"));
    store = new FileApprovalStore({ dir });
    browser = await launchChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(cases.cases)(
    "refuses $note, says so and sends nothing more",
    async (row) => {
      const { page, running, key } = await tabLeftOpen();
      const { server, seen } = await squat(running.port, row);
      try {
        await expectStopped(page, running.url);
        const sent = seen.length;
        expect(sent).toBeGreaterThan(0);
        await tryToSend(page);
        expect(await page.locator("#status").textContent()).toBe("stopped: not the console");
        expect(seen.length).toBe(sent);
        // What reached the squatter never holds the key (it only ever names a session that died with the console).
        for (const req of seen) expect(JSON.stringify([req.url, req.headers])).not.toContain(key);
      } finally {
        await page.context().close();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
    240_000,
  );

  it("refuses the console itself restarted on the same port: the old session cannot be proven", async () => {
    const { page, running } = await tabLeftOpen();
    const again = await startConsole({ store, token: TOKEN, port: running.port });
    try {
      await expectStopped(page, running.url);
      await tryToSend(page);
      // Signing in again is the person's choice: the banner's button forgets the session for the sign-in form.
      await page.getByRole("button", { name: "Sign in again" }).click();
      await page.waitForURL(/\/login$/, { timeout: 30_000 });
    } finally {
      await page.context().close();
      await again.close();
    }
  }, 240_000);
});
