import { describe, expect, it } from "vitest";
import { fitPlan, MAX_COVERS, MAX_MOUNT_PATH } from "./plan-budget.js";
import type { CoverKind, Layout } from "./survey.js";

const ROOT = "/w/project";

function layout(covers: [string, CoverKind][], placeholders: string[] = []): Layout {
  return {
    mode: "workspace-write",
    network: false,
    cwd: ROOT,
    home: undefined,
    visible: [],
    writable: [ROOT],
    readOnlyRoots: [],
    covers: new Map(covers),
    placeholders,
    placeholderFiles: new Map(),
    pins: [],
    gitDirs: [],
    gitTops: new Map(),
    gitlinks: new Map(),
    globalHooksPaths: [],
    baseline: new Map(),
    unsurveyed: [],
    notes: [],
  };
}

const many = (folder: string, n: number): [string, CoverKind][] =>
  Array.from({ length: n }, (_, i) => [`${folder}/k${i}.pem`, "null"]);

describe("fitPlan", () => {
  it("leaves a plan within both budgets as it is", () => {
    const plan = layout([...many(`${ROOT}/certs`, 10), [`${ROOT}/.git`, "self"]]);
    fitPlan(plan, [ROOT]);
    expect(plan.covers.size).toBe(11);
    expect(plan.notes).toEqual([]);
  });

  it("hides a folder holding too many covers whole, and says so", () => {
    const plan = layout([...many(`${ROOT}/certs/test`, MAX_COVERS + 100), [`${ROOT}/.env`, "null"]]);
    fitPlan(plan, [ROOT]);
    expect([...plan.covers]).toEqual([
      [`${ROOT}/.env`, "null"],
      [`${ROOT}/certs/test`, "empty"],
    ]);
    expect(plan.unsurveyed).toEqual([`${ROOT}/certs/test`]);
    expect(plan.notes.join("\n")).toMatch(/certs\/test is hidden whole: it holds 612 /);
  });

  it("climbs when covers are spread one per folder", () => {
    const spread: [string, CoverKind][] = Array.from({ length: MAX_COVERS + 1 }, (_, i) => [
      `${ROOT}/pkgs/p${i}/key.pem`,
      "null",
    ]);
    const plan = layout(spread);
    fitPlan(plan, [ROOT]);
    expect(plan.covers.size).toBeLessThanOrEqual(MAX_COVERS);
    expect(plan.covers.get(`${ROOT}/pkgs`)).toBe("empty");
  });

  it("refuses, with the fix, when only hiding the workspace would do", () => {
    const plan = layout(many(ROOT, MAX_COVERS + 1));
    expect(() => fitPlan(plan, [ROOT])).toThrow(
      /holds 513 files the sandbox hides \(at most 512 in all\), and hiding them would hide the workspace \/w\/project; remove or move them into a folder/,
    );
  });

  it("replaces a cover too long to mount by the deepest folder above it that fits", () => {
    const parts: string[] = [];
    while (`${ROOT}/${parts.join("/")}`.length < MAX_MOUNT_PATH + 600) parts.push("d".repeat(250));
    const deep = `${ROOT}/${parts.join("/")}`;
    const plan = layout(
      [
        [deep, "empty"],
        [`${deep}/.env`, "null"],
      ],
      [`${deep}/x`],
    );
    fitPlan(plan, [ROOT]);
    const [folder, kind] = [...plan.covers][0] ?? [];
    expect(plan.covers.size).toBe(1);
    expect(kind).toBe("empty");
    expect(folder!.length).toBeLessThanOrEqual(MAX_MOUNT_PATH);
    expect(deep.startsWith(`${folder}/`)).toBe(true);
    expect(folder!.length).toBeGreaterThan(MAX_MOUNT_PATH - 252);
    expect(plan.placeholders).toEqual([]);
    expect(plan.notes.join("\n")).toMatch(/holds paths longer than the sandbox can mount/);
  });
});
