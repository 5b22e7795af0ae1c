/**
 * The console at the scale in Debian's chromium: 1,000 pending asks from ten agents and an audit log
 * of 100,000 records. Every ask is on the page, in its agent's group, and the last one is reachable by the
 * keyboard and answered; the audit view shows the newest page, "Older records" continues it with no repeat
 * and no gap, and a filter shows exactly the records the log holds for it. How fast is the bench's business
 * (src/bench/console-scale.bench.ts): this test asserts behaviour, never time.
 */
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AuditRecord } from "../core/index.js";
import { consoleInBrowser } from "../test-support/console-browser.js";
import {
  publishScaleAsks,
  SCALE_ASKS,
  SCALE_RECORDS,
  scaleRecord,
  writeScaleLog,
} from "../test-support/console-scale.js";
import { type AuditFilter, auditMatches } from "./audit-query.js";

let fixture: Awaited<ReturnType<typeof consoleInBrowser>>;
let ids: string[];

/** The first `n` call ids `filter` selects, newest first. */
function newest(filter: AuditFilter, n: number): string[] {
  const out: string[] = [];
  for (let i = SCALE_RECORDS - 1; i >= 0 && out.length < n; i--) {
    const record: AuditRecord = scaleRecord(i);
    if (auditMatches(record, filter)) out.push(record.time);
  }
  return out;
}

/** The audit table's Time column, top to bottom. */
const shownTimes = (page: Page) => page.locator("#audit-table tbody tr td:first-child").allTextContents();

describe("the console with 1,000 pending asks and 100,000 audit records", () => {
  beforeAll(async () => {
    fixture = await consoleInBrowser({}, { auditFile: "audit.jsonl" });
    writeScaleLog(join(fixture.ws, "audit.jsonl"));
    ids = await publishScaleAsks(fixture.store);
  }, 300_000);
  afterAll(async () => {
    await fixture?.close();
  });

  it("shows every ask in its agent's group, the last one reachable by keyboard and answered", async () => {
    const page = await fixture.signIn("alice");
    const asks = page.locator("#asks li.ask");
    await expect.poll(() => asks.count(), { timeout: 120_000 }).toBe(SCALE_ASKS);
    const shown = await asks.evaluateAll((items) => items.map((li) => li.getAttribute("data-id")));
    expect([...shown].sort()).toEqual([...ids].sort());
    const counts = await page.locator("section.group .count").allTextContents();
    expect(counts).toEqual(Array(10).fill(`${SCALE_ASKS / 10} pending`));
    // k with no ask in focus goes to the last one on the page.
    const last = shown.at(-1) as string;
    await page.keyboard.press("k");
    expect(await page.evaluate("document.activeElement?.getAttribute('data-id')")).toBe(last);
    await page.keyboard.press("a");
    await expect
      .poll(async () => (await fixture.store.get(last))?.state, { timeout: 60_000 })
      .toBe("approved");
    await expect.poll(() => page.locator("section.group .count").last().textContent()).toBe("99 pending");
    await page.context().close();
  }, 300_000);

  it("pages the audit log newest first with no repeat or gap, and filters it exactly", async () => {
    const page = await fixture.signIn("alice");
    const rows = page.locator("#audit-table tbody tr");
    await expect.poll(() => rows.count(), { timeout: 60_000 }).toBe(100);
    expect(await shownTimes(page)).toEqual(newest({}, 100));
    const older = page.getByRole("button", { name: "Older records" });
    await older.click();
    await expect.poll(() => rows.count(), { timeout: 60_000 }).toBe(200);
    await older.click();
    await expect.poll(() => rows.count(), { timeout: 60_000 }).toBe(300);
    expect(await shownTimes(page)).toEqual(newest({}, 300));

    await page.getByLabel("Tool").fill("shell");
    await page.getByLabel("Decision").selectOption("deny");
    await page.getByRole("button", { name: "Filter" }).click();
    const filter = { tool: "shell", decision: "deny" };
    await expect.poll(() => shownTimes(page), { timeout: 60_000 }).toEqual(newest(filter, 100));
    await older.click();
    await expect.poll(() => rows.count(), { timeout: 60_000 }).toBe(200);
    expect(await shownTimes(page)).toEqual(newest(filter, 200));
    expect(await rows.first().textContent()).toContain("denied_by_policy");

    await page.getByLabel("Tool").fill("");
    await page.getByLabel("Decision").selectOption("");
    // By id: the groups of agents are labelled "Agent …" too.
    await page.locator("#audit-agent").fill("nobody");
    await page.getByRole("button", { name: "Filter" }).click();
    await expect.poll(() => rows.count(), { timeout: 60_000 }).toBe(0);
    expect(await older.isHidden()).toBe(true);
    await page.context().close();
  }, 300_000);
});
