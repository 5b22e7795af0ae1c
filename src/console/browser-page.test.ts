/**
 * The console page's answers beyond once/deny, in Debian's chromium: "Approve always" shows the exact rule,
 * a call it matches and one it does not, and where it goes; confirming makes the real `toolgate call` that
 * asked write that very rule (read back from the policy file), and a rule a deny shadows is refused with the
 * reason. Batches per agent turn, all or nothing; groups by agent oldest first; the countdown's warning and
 * an expiry's note; keyboard-only answers; 400 % zoom without horizontal scrolling; the dark theme. axe-core
 * finds no serious or critical violation on any of them. Screenshots go to test-output/console/.
 */
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { BrowserContextOptions, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FileApprovalStore } from "../approvals/index.js";
import type { ApprovalRecord } from "../core/index.js";
import { ask, DETAILS } from "../test-support/console.js";
import { axeViolations, callTool, consoleInBrowser, SHOTS } from "../test-support/console-browser.js";

const POLICY = 'default = "ask"\n';
const DENIED = {
  refused: 'the policy denies this call (rule policy.toml#1 (line 4)), and "always" never overrides a deny',
};

let fixture: Awaited<ReturnType<typeof consoleInBrowser>>;
let ws: string;
let home: string;
let store: FileApprovalStore;

const signIn = (name: string, options: BrowserContextOptions = {}) => fixture.signIn(name, options);
const item = (page: Page, text: string) => page.getByRole("listitem").filter({ hasText: text }).last();
const group = (page: Page, title: string) => page.locator("section.group").filter({ hasText: title });
const button = (name: string) => ({ name, exact: true });

describe("the console page's answers in chromium", () => {
  beforeAll(async () => {
    fixture = await consoleInBrowser(
      { ".toolgate/config.toml": '[approvals]\nroute = "console"\n', ".toolgate/policy.toml": POLICY },
      { expireEveryMs: 500 },
    );
    ({ ws, home, store } = fixture);
  }, 120_000);
  afterAll(async () => {
    await fixture?.close();
  });

  it("a command longer than the page is sent offers no Approve, alone or in a batch (red team F4)", async () => {
    const page = await signIn("carol");
    const command = `${"echo build-step-ok && ".repeat(1_500)}touch HIDDEN-ACTION.txt`;
    const record = await store.publish(
      ask({ callId: "long-tail", details: { ...DETAILS, description: "shell: long", command } }),
    );
    const asked = page.locator(`li.ask[data-id="${record.id}"]`);
    await asked.waitFor({ timeout: 60_000 });
    expect(await asked.getByRole("button", button("Approve")).isDisabled()).toBe(true);
    expect(await asked.getByRole("button", button("Approve always")).isDisabled()).toBe(true);
    expect(await asked.locator(".unseen").textContent()).toBe(
      `Approving is not offered here: its command is ${command.length.toLocaleString("en")} characters and the console shows at most 20,000, so its end would be approved unseen: deny it here, or approve it where it is shown whole (the asking terminal, or toolgate approvals show/approve ${record.id})`,
    );
    const batch = page.locator("section.group").filter({ has: asked });
    await expect.poll(() => batch.getByRole("button", button("Deny all")).isEnabled()).toBe(true);
    expect(await batch.getByRole("button", button("Approve all")).isDisabled()).toBe(true);
    // The keyboard's approve presses the same disabled button: nothing is sent.
    await asked.focus();
    await page.keyboard.press("a");
    expect(await asked.getByRole("status").textContent()).toBe("");
    expect((await store.get(record.id))?.state).toBe("pending");
    await asked.getByRole("button", button("Deny")).click();
    await expect.poll(async () => (await store.get(record.id))?.state).toBe("denied");
    await page.context().close();
  }, 240_000);

  it("approve always shows the rule, where it goes and two examples; the process writes exactly that rule", async () => {
    const page = await signIn("alice");
    const calling = callTool(ws, home, "write_file", { path: "always.txt", content: "hi\n" });
    const asked = item(page, "write_file needs your approval");
    await asked.waitFor({ timeout: 60_000 });
    await asked.getByRole("button", button("Approve always")).click();
    const panel = asked.locator(".always");
    await expect.poll(() => panel.isVisible()).toBe(true);
    const rule = (await panel.locator(".rule").textContent()) as string;
    expect(rule).toBe(
      '[[rules]]\ntool = "write_file"\ndecision = "allow"\nwhen.path = { equals = "always.txt" }',
    );
    const said = (await panel.textContent()) as string;
    expect(said).toContain("Approve always adds this rule to .toolgate/policy.toml");
    expect(said).toContain('write_file {"path":"always.txt","content":"hi\\n"}');
    expect(said).toContain('write_file {"path":"always.txt-other","content":"hi\\n"}');
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(SHOTS, "always.png"), fullPage: true });

    await panel.getByRole("button", button("Add the rule and approve")).click();
    const done = await calling;
    expect(done.code).toBe(0);
    expect(done.stderr).toContain("added the rule to .toolgate/policy.toml");
    const policy = readFileSync(join(ws, ".toolgate", "policy.toml"), "utf8");
    expect(policy).toBe(`${POLICY}\n# added by toolgate: "always" for exactly one call\n${rule}\n`);
    // The rule allows the call from now on: the same call (the file gone again) runs without an ask.
    rmSync(join(ws, "always.txt"));
    const again = await callTool(ws, home, "write_file", { path: "always.txt", content: "again\n" });
    expect(again.stderr).toBe("");
    expect(again.code).toBe(0);
    expect(readFileSync(join(ws, "always.txt"), "utf8")).toBe("again\n");
    await page.context().close();
  }, 240_000);

  it("says why always is not possible where a deny shadows the rule, and offers no way to add it", async () => {
    const page = await signIn("alice");
    const record = await store.publish(ask({ callId: "shadowed", always: DENIED }));
    const asked = item(page, "shell needs your approval");
    await asked.waitFor({ timeout: 60_000 });
    await asked.getByRole("button", button("Approve always")).click();
    const panel = asked.locator(".always");
    await expect.poll(() => panel.textContent()).toContain('"always" never overrides a deny');
    expect(await panel.getByRole("button", button("Add the rule and approve")).count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(SHOTS, "always-refused.png"), fullPage: true });
    expect((await store.get(record.id))?.state).toBe("pending");
    await store.withdraw(record.id);
    await page.context().close();
  }, 240_000);

  it("groups by agent oldest first, and answers one turn's asks together, all or nothing", async () => {
    const page = await signIn("alice");
    const older: ApprovalRecord[] = [];
    for (const callId of ["z1", "z2"]) older.push(await store.publish(ask({ callId, agent: "zeta" })));
    const newer: ApprovalRecord[] = [];
    for (const callId of ["a1", "a2"]) newer.push(await store.publish(ask({ callId, agent: "alpha" })));
    const zeta = group(page, "Agent zeta");
    const alpha = group(page, "Agent alpha");
    await expect.poll(() => alpha.getByRole("listitem").count(), { timeout: 60_000 }).toBe(2);
    await expect.poll(() => zeta.getByRole("listitem").count()).toBe(2);
    const titles = await page.locator("section.group h3").allTextContents();
    expect(titles.indexOf("Agent zeta · this machine")).toBeLessThan(
      titles.indexOf("Agent alpha · this machine"),
    );
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(SHOTS, "groups.png"), fullPage: true });

    // Bob answers one of alpha's asks while alice's batch is on its way: none of the batch changes.
    await page.route("**/api/approvals/batch", async (route) => {
      await store.answer(newer[1]!.id, { approved: false, by: "bob", reason: "not now" });
      await route.continue();
    });
    await alpha.getByRole("button", button("Approve all")).click();
    const said = alpha.locator(".batch + .outcome");
    await expect.poll(() => said.textContent(), { timeout: 30_000 }).toContain("none was answered: 1 of 2");
    expect(await said.textContent()).toMatch(
      new RegExp(`approval ${newer[1]!.id} was already denied by bob at`),
    );
    expect((await store.get(newer[0]!.id))?.state).toBe("pending");
    await page.screenshot({ path: join(SHOTS, "batch-refused.png"), fullPage: true });
    await page.unroute("**/api/approvals/batch");

    await zeta.getByLabel("Reason for all (the model sees it)").fill("one turn at a time");
    await zeta.getByRole("button", button("Deny all")).click();
    for (const record of older)
      await expect
        .poll(async () => (await store.get(record.id))?.settled)
        .toMatchObject({ by: "alice", reason: "one turn at a time" });
    await store.withdraw(newer[0]!.id);
    await page.context().close();
  }, 240_000);

  it("counts down, warns in the last 30 s, and takes an expired ask away with a note", async () => {
    const page = await signIn("alice");
    await store.publish(ask({ callId: "soon", agent: "hasty", timeoutMs: 8_000 }));
    const asked = item(page, "shell needs your approval");
    await asked.waitFor({ timeout: 60_000 });
    const countdown = asked.locator(".countdown.expiring");
    await expect
      .poll(() => countdown.textContent(), { timeout: 30_000 })
      .toMatch(/answer now, or it is denied/);
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(SHOTS, "expiring.png"), fullPage: true });
    const note = page.locator("#expired li");
    await expect.poll(() => note.textContent(), { timeout: 60_000 }).toMatch(/expired with no answer/);
    expect(await group(page, "Agent hasty").count()).toBe(0);
    await page.context().close();
  }, 240_000);

  it("answers from the keyboard alone: next, approve, deny with a reason", async () => {
    const page = await signIn("alice");
    expect(await page.locator("#keyboard").textContent()).toContain("approve the ask in focus");
    const first = await store.publish(ask({ callId: "k1", agent: "keys" }));
    const second = await store.publish(ask({ callId: "k2", agent: "keys" }));
    await expect
      .poll(() => group(page, "Agent keys").getByRole("listitem").count(), { timeout: 60_000 })
      .toBe(2);
    await page.keyboard.press("j");
    expect(await page.evaluate("document.activeElement?.getAttribute('data-id')")).toBe(first.id);
    await page.keyboard.press("a");
    await expect.poll(async () => (await store.get(first.id))?.state).toBe("approved");
    await page.keyboard.press("j");
    expect(await page.evaluate("document.activeElement?.getAttribute('data-id')")).toBe(second.id);
    await page.keyboard.press("d");
    await page.keyboard.type("not this one");
    await page.keyboard.press("Enter");
    await expect
      .poll(async () => (await store.get(second.id))?.settled)
      .toMatchObject({ by: "alice", reason: "not this one" });
    await page.context().close();
  }, 240_000);

  it("reads at 400 % zoom without horizontal scrolling, and follows a dark system theme", async () => {
    // 400 % of a 1280-pixel-wide window leaves 320 CSS pixels.
    const page = await signIn("alice", { viewport: { width: 320, height: 640 }, colorScheme: "dark" });
    const record = await store.publish(ask({ callId: "zoom", agent: "a-rather-long-agent-name-for-zoom" }));
    await item(page, "shell needs your approval").waitFor({ timeout: 60_000 });
    const widths = (await page.evaluate(
      "[document.documentElement.scrollWidth, window.innerWidth]",
    )) as number[];
    expect(widths[0]).toBeLessThanOrEqual(widths[1] as number);
    const background = await page.evaluate("getComputedStyle(document.body).backgroundColor");
    expect(background).toBe("rgb(22, 22, 22)");
    expect(await axeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(SHOTS, "zoom-400-dark.png"), fullPage: true });
    await store.withdraw(record.id);
    await page.context().close();
  }, 240_000);
});
