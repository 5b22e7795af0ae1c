/**
 * The console in a real browser: Debian's chromium driven by playwright-core (no browser download). Signs in
 * with the token, into a session no server on another loopback port receives; asks of real `toolgate call` processes (no terminal, `[approvals] route = "console"`)
 * appear; Approve lets the process run, Deny with a reason refuses it with that reason; two people racing on
 * one ask: the loser reads who decided and when; hostile texts render inert; the audit view filters; axe-core
 * finds no serious or critical violation. Screenshots go to test-output/console/.
 */
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FileApprovalStore } from "../approvals/index.js";
import { ask, DETAILS } from "../test-support/console.js";
import { axeViolations, callTool, consoleInBrowser, SHOTS } from "../test-support/console-browser.js";
import hostile from "./testdata/hostile-content.json" with { type: "json" };

/** A record the live tail must show (as the audit writer writes one). */
const TAILED = {
  tool: "shell",
  agent: "tailer",
  argsDigest: "0".repeat(64),
  decision: "deny",
  rule: "policy.toml#7",
  risk: "high",
  outcome: "denied",
  durationMs: 1,
};

let fixture: Awaited<ReturnType<typeof consoleInBrowser>>;
let ws: string;
let store: FileApprovalStore;

const callWriteFile = (path: string) => callTool(ws, fixture.home, "write_file", { path, content: "hi\n" });
const signIn = (name: string) => fixture.signIn(name);

/** The list item of the ask headed `heading` (the newest, if several). */
const askItem = (page: Page, heading: string) =>
  page.getByRole("listitem").filter({ hasText: heading }).last();

describe("the console in chromium", () => {
  beforeAll(async () => {
    fixture = await consoleInBrowser(
      { ".toolgate/config.toml": '[approvals]\nroute = "console"\n\n[audit]\nfile = "audit.jsonl"\n' },
      { auditFile: "audit.jsonl" },
    );
    ({ ws, store } = fixture);
  }, 120_000);
  afterAll(async () => {
    await fixture?.close();
  });

  it("signs in with the token; an approved call runs, a denied one gets the reason", async () => {
    const page = await signIn("alice");
    expect(await axeViolations(page)).toEqual([]);
    const calling = callWriteFile("approved.txt");
    const item = askItem(page, "write_file needs your approval");
    await item.waitFor({ timeout: 60_000 });
    await page.screenshot({ path: join(SHOTS, "pending.png"), fullPage: true });
    expect(await axeViolations(page)).toEqual([]);
    await item.getByRole("button", { name: "Approve", exact: true }).click();
    const approved = await calling;
    expect(approved.code).toBe(0);
    expect(readFileSync(join(ws, "approved.txt"), "utf8")).toBe("hi\n");
    await expect.poll(() => item.getByRole("status").textContent()).toBe("Approved.");

    const denying = callWriteFile("denied.txt");
    const next = page
      .getByRole("listitem")
      .filter({ has: page.getByRole("button", { name: "Deny", exact: true, disabled: false }) });
    await next.waitFor({ timeout: 60_000 });
    await next.getByLabel("Reason (the model sees it)").fill("not on a Friday");
    await next.getByRole("button", { name: "Deny", exact: true }).click();
    const denied = await denying;
    expect(denied.code).toBe(3);
    expect(denied.stderr).toContain("write_file was denied: it was not approved: not on a Friday");
    expect(existsSync(join(ws, "denied.txt"))).toBe(false);
    await page.context().close();
  }, 240_000);

  it("keeps the session from a server on another loopback port the same browser visits", async () => {
    // Another local user's server: it records what the browser sends it, as the red team's did.
    const seen: IncomingHttpHeaders[] = [];
    const other = createServer((req, res) => {
      seen.push(req.headers);
      res.setHeader("Content-Type", "text/html");
      res.end("<!doctype html><title>elsewhere</title><p>elsewhere</p>");
    });
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    try {
      const page = await signIn("alice");
      expect(await page.context().cookies()).toEqual([]);
      const port = (other.address() as AddressInfo).port;
      await page.goto(`http://127.0.0.1:${port}/`);
      // A page of that origin cannot read ours: sessionStorage is per origin, port included.
      expect(await page.evaluate("sessionStorage.length")).toBe(0);
      expect(seen.length).toBeGreaterThan(0);
      for (const headers of seen) {
        expect(headers.cookie).toBeUndefined();
        expect(headers.authorization).toBeUndefined();
      }
      // Back on the console, this tab is still signed in, with no new sign-in.
      await page.goto(fixture.running.url);
      await expect.poll(() => page.locator("#status").textContent(), { timeout: 30_000 }).toBe("live");
      expect(await page.locator("#who").textContent()).toBe("alice");
      await page.context().close();
    } finally {
      other.close();
    }
  }, 240_000);

  it("tells the second of two people deciding one ask who decided and when", async () => {
    const [alice, bob] = [await signIn("alice"), await signIn("bob")];
    const record = await store.publish(ask({ callId: "race" }));
    const heading = "shell needs your approval (risk: high)";
    const [a, b] = [askItem(alice, heading), askItem(bob, heading)];
    await Promise.all([a.waitFor({ timeout: 60_000 }), b.waitFor({ timeout: 60_000 })]);
    // Bob's click may land before or after his page hears of Alice's answer: either way he is told.
    await a.getByRole("button", { name: "Approve", exact: true }).click();
    await b
      .getByRole("button", { name: "Deny", exact: true })
      .click({ timeout: 2_000 })
      .catch(() => undefined);
    await expect
      .poll(() => b.getByRole("status").textContent(), { timeout: 30_000 })
      .toMatch(new RegExp(`^approval ${record.id} was already approved by alice at \\d{4}-\\d\\d-\\d\\dT`));
    expect((await store.get(record.id))?.settled?.by).toBe("alice");
    await bob.screenshot({ path: join(SHOTS, "already-decided.png"), fullPage: true });
    await alice.context().close();
    await bob.context().close();
  }, 240_000);

  it("renders hostile texts and 1 MB arguments as inert text", async () => {
    const page = await signIn("alice");
    const records = [];
    for (const c of hostile.cases) {
      records.push(
        await store.publish(ask({ callId: c.note, details: { ...DETAILS, command: c.text, agent: c.text } })),
      );
    }
    const huge = `${"<b>x</b>".repeat(131_072)}`;
    records.push(await store.publish(ask({ callId: "huge", details: { ...DETAILS, command: huge } })));
    await expect
      .poll(() => page.getByRole("listitem").count(), { timeout: 60_000 })
      .toBeGreaterThanOrEqual(records.length);
    const text = (await page.locator("#asks").textContent()) as string;
    for (const c of hostile.cases) expect(text).toContain(c.written ?? c.text);
    expect(text).toContain("more characters not shown");
    // Nothing in the asks became an element: only what the page itself builds.
    const tags = await page
      .locator("#asks *")
      .evaluateAll((nodes) => [...new Set(nodes.map((n) => n.tagName))]);
    expect(tags.sort()).toEqual([
      "BUTTON",
      "DIV",
      "H3",
      "H4",
      "INPUT",
      "LABEL",
      "LI",
      "OL",
      "P",
      "SECTION",
      "SPAN",
    ]);
    await page.screenshot({ path: join(SHOTS, "hostile.png") });
    for (const record of records) await store.withdraw(record.id);
    await page.context().close();
  }, 240_000);

  it("shows the audit log, filtered by tool, decision, agent and time, with a live tail and each call's detail", async () => {
    const page = await signIn("alice");
    const rows = page.locator("#audit-table tbody tr");
    await expect.poll(() => rows.count(), { timeout: 30_000 }).toBeGreaterThanOrEqual(2);
    await page.getByLabel("Decision").selectOption("ask");
    await page.getByRole("button", { name: "Filter" }).click();
    await expect
      .poll(async () =>
        (await rows.allTextContents()).every((r) => r.includes("write_file") && r.includes("ask")),
      )
      .toBe(true);
    await page.getByLabel("Tool").fill("read_file");
    await page.getByRole("button", { name: "Filter" }).click();
    await expect.poll(() => rows.count()).toBe(0);
    await page.getByLabel("Tool").fill("");
    await page.getByLabel("Decision").selectOption("");
    await page.getByRole("button", { name: "Filter" }).click();
    await expect.poll(() => rows.count()).toBeGreaterThanOrEqual(2);
    await page.getByLabel("Agent").fill("nobody");
    await page.getByRole("button", { name: "Filter" }).click();
    await expect.poll(() => rows.count()).toBe(0);
    await page.getByLabel("Agent").fill("");
    await page.getByLabel("From").fill("2999-01-01T00:00:00");
    await page.getByRole("button", { name: "Filter" }).click();
    await expect.poll(() => rows.count()).toBe(0);
    await page.getByLabel("From").fill("");
    await page.getByRole("button", { name: "Filter" }).click();
    await expect.poll(() => rows.count()).toBeGreaterThanOrEqual(2);
    // Live tail: a record appended to the log appears without pressing Filter.
    await page.getByLabel("Live tail").check();
    const tailed = { ...TAILED, time: new Date().toISOString() };
    appendFileSync(join(ws, "audit.jsonl"), `${JSON.stringify(tailed)}\n`);
    const row = rows.filter({ hasText: "tailer" });
    await row.waitFor({ timeout: 30_000 });
    await row.getByText("why").click();
    expect(await row.textContent()).toContain("decided deny by rule policy.toml#7");
    // A real call's record holds the policy's explain trace, kept when the call was decided.
    await page.getByLabel("Live tail").uncheck();
    const called = rows.filter({ hasText: "write_file" }).first();
    await called.getByText("why").click();
    await expect
      .poll(() => called.locator("pre.trace").textContent())
      .toMatch(/(decision ask by rule|no rule matched: default decision ask)/);
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(SHOTS, "audit.png"), fullPage: true });
    await page.context().close();
  }, 240_000);
});
