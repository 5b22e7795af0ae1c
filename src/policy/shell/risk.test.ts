import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { analyzeCommand } from "./analyze.js";
import { classifyRisk } from "./risk.js";
import { loadRiskPrograms } from "./risk-programs.js";

interface RiskCase {
  note: string;
  command: string;
  want: { risk: string; reasons: string[] };
}

const corpus = JSON.parse(readFileSync(new URL("./testdata/risk.json", import.meta.url), "utf8")) as {
  cases: RiskCase[];
};
const data = JSON.parse(readFileSync(new URL("./risk-programs.json", import.meta.url), "utf8")) as Record<
  string,
  unknown
>;

describe("classifyRisk (testdata/risk.json)", () => {
  it.each(corpus.cases.map((c) => [c.note, c] as const))("%s", async (_note, c) => {
    const a = await analyzeCommand(c.command);
    expect(classifyRisk(a)).toEqual(c.want);
    expect(a.risk).toBe(c.want.risk);
  });

  it("an empty command is medium, not low", () => {
    expect(classifyRisk({ ok: true, commands: [], unsafe: [] })).toEqual({ risk: "medium", reasons: [] });
  });
});

describe("risk-programs.json", () => {
  it("loads, and its sets answer by exact name or anchored pattern", () => {
    const tables = loadRiskPrograms(data);
    expect(tables.disk.has("mkfs.ext4")).toBe(true);
    expect(tables.disk.has("mkfs")).toBe(true);
    expect(tables.disk.has("xmkfs")).toBe(false);
    expect(tables.runsStdin.has("python3.12")).toBe(true);
    expect(tables.runsStdin.has("python-config")).toBe(false);
    expect(tables.findActs("-execdir")).toBe(true);
    expect(tables.findActs("-name")).toBe(false);
  });

  it.each([
    [{ ...data, power2: [] }, 'unknown key "power2"'],
    [{ ...data, power: undefined }, '"power" is missing'],
    [{ ...data, readOnly: ["ls", 3] }, "readOnly must be a list of non-empty strings"],
    [{ ...data, disk: { names: ["dd"], pattern: ["x"] } }, 'disk has an unknown key "pattern"'],
    [{ ...data, disk: { namePatterns: ["mkfs("] } }, "disk.namePatterns[0]"],
    [{ ...data, findActs: ["-exec"] }, "findActs must be a pattern"],
  ])("refuses a malformed table at load (%#)", (bad, message) => {
    expect(() => loadRiskPrograms(bad)).toThrow(message);
  });
});
