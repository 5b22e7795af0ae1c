import { describe, expect, it } from "vitest";
import type { AuditRecord } from "../core/index.js";
import { auditFilterFrom, auditMatches } from "./audit-query.js";

const record = (over: Partial<AuditRecord>): AuditRecord =>
  ({
    time: "2026-11-27T10:30:00.000Z",
    tool: "shell",
    decision: "allow",
    agent: "main",
    ...over,
  }) as AuditRecord;

describe("auditFilterFrom", () => {
  it("reads tool, decision, agent and a time window, dropping empty values", () => {
    expect(
      auditFilterFrom({
        tool: " shell ",
        decision: "deny",
        agent: "",
        since: "2026-11-27T10:00:00Z",
        until: undefined,
      }),
    ).toEqual({ tool: "shell", decision: "deny", since: Date.parse("2026-11-27T10:00:00Z") });
  });

  it.each(["since", "until"])("refuses a %s that is not a time, naming it", (key) => {
    expect(auditFilterFrom({ [key]: "yesterday-ish" })).toEqual({
      problem: `${key} is not a time: "yesterday-ish"`,
    });
  });
});

describe("auditMatches", () => {
  const since = Date.parse("2026-11-27T10:00:00Z");
  const until = Date.parse("2026-11-27T11:00:00Z");
  it.each([
    [{}, {}, true],
    [{ tool: "shell" }, { tool: "read_file" }, false],
    [{ decision: "deny" }, {}, false],
    [{ agent: "main" }, {}, true],
    [{ agent: "helper" }, {}, false],
    [{ since, until }, {}, true],
    [{ since, until }, { time: "2026-11-27T09:59:59.999Z" }, false],
    [{ since, until }, { time: "2026-11-27T11:00:00.001Z" }, false],
    [{ since }, { time: "not a time" }, false],
  ])("filter %j on record %j: %s", (filter, over, want) => {
    expect(auditMatches(record(over as Partial<AuditRecord>), filter)).toBe(want);
  });
});
