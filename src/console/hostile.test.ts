/**
 * Hostile content (testdata/hostile-content.json, and 1 MB of arguments) through the console's API over
 * real HTTP: the page is sent the text with hidden characters written out, exactly as the terminal shows
 * them, as JSON (never HTML), and a huge field is cut with a count. The browser test renders the same asks.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { displaySafe } from "../core/index.js";
import { ask, consoleFixture, DETAILS, groupOf, raw } from "../test-support/console.js";
import { type AskView, MAX_FIELD_CHARS } from "./index.js";
import hostile from "./testdata/hostile-content.json" with { type: "json" };

describe("hostile content in the console's API", () => {
  let fixture: Awaited<ReturnType<typeof consoleFixture>>;
  let session: Awaited<ReturnType<typeof fixture.signIn>>;
  beforeAll(async () => {
    fixture = await consoleFixture();
    session = await fixture.signIn();
  });
  afterAll(async () => fixture.close());

  const pending = async (): Promise<AskView[]> => {
    const res = await raw(fixture.running.port, {
      path: "/api/approvals",
      headers: { host: fixture.host, ...session.auth },
    });
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    return JSON.parse(res.body).pending;
  };

  it.each(hostile.cases)("$note reaches the page as written-out text", async ({ note, text, written }) => {
    // As the gate would publish it (display-safe), and raw too (another process wrote the folder).
    for (const command of [displaySafe(text, false), text]) {
      const record = await fixture.store.publish(
        ask({ callId: note, details: { ...DETAILS, command, description: command, agent: command } }),
      );
      const view = (await pending()).find((v) => v.id === record.id) as AskView;
      const shown = view.fields.find((f) => f.label === "command")?.text;
      expect(shown).toBe(written ?? text);
      expect(view.fields.find((f) => f.label === "sub-agent")?.text).toBe(written ?? text);
      await fixture.store.withdraw(record.id);
    }
  });

  it("cuts a 1 MB argument to what the page can show, saying how much is left out", async () => {
    const huge = `${"A".repeat(1_000_000)}<script>`;
    const record = await fixture.store.publish(
      ask({ callId: "huge", details: { ...DETAILS, command: huge } }),
    );
    const view = (await pending()).find((v) => v.id === record.id) as AskView;
    const shown = view.fields.find((f) => f.label === "command")?.text as string;
    expect(shown).toBe(
      `${"A".repeat(MAX_FIELD_CHARS)}… (${huge.length - MAX_FIELD_CHARS} more characters not shown)`,
    );
    await fixture.store.withdraw(record.id);
  });

  it.each([
    ["approve", "/api/approvals/ID", { decision: "approve" }],
    ["always", "/api/approvals/ID", { decision: "always" }],
    ["approve all", "/api/approvals/batch", { decision: "approve" }],
  ])(
    "refuses %s of a command past the field cut: its end would be approved unseen (F4)",
    async (_, path, body) => {
      const command = `${"echo build-step-ok && ".repeat(1_500)}touch HIDDEN-ACTION.txt`;
      const record = await fixture.store.publish(
        ask({ callId: `long-${path}`, details: { ...DETAILS, command } }),
      );
      const view = (await pending()).find((v) => v.id === record.id) as AskView;
      expect(view.unseen).toMatch(/^its command is 33,023 characters and the console shows at most 20,000/);
      const batch = path.endsWith("batch");
      const res = await raw(fixture.running.port, {
        method: "POST",
        path: path.replace("ID", record.id),
        headers: {
          host: fixture.host,
          origin: `http://${fixture.host}`,
          "content-type": "application/json",
          "x-csrf-token": session.csrf,
          ...session.auth,
        },
        body: JSON.stringify(
          batch ? { ...body, ids: [record.id], group: await groupOf(fixture.store, record.id) } : body,
        ),
      });
      expect(res.status).toBe(409);
      expect(res.body).toContain("would be approved unseen");
      expect((await fixture.store.get(record.id))?.state).toBe("pending");
      await fixture.store.withdraw(record.id);
    },
  );

  it("shows the fields in the terminal's order, the sandbox line last", async () => {
    const record = await fixture.store.publish(ask({ callId: "order" }));
    const view = (await pending()).find((v) => v.id === record.id) as AskView;
    expect(view.heading).toBe("shell needs your approval (risk: high)");
    expect(view.fields.map((f) => f.label)).toEqual(["call", "command", "affects", "why asked"]);
    expect(view.sandbox).toBe("sandbox: workspace-write: writes only inside /ws, no network");
    await fixture.store.withdraw(record.id);
  });
});
