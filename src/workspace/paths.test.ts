import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { seededRandom } from "../utils/index.js";
import { absoluteFrom, isInsideOrEqual } from "./paths.js";

describe("absoluteFrom", () => {
  it("gives what path.resolve gives, for normal and abnormal paths alike", () => {
    const cases = [
      "/a/b.ts",
      "/a//b",
      "/a/./b",
      "/a/../b",
      "/a/b/",
      "/a/b/.",
      "/a/b/..",
      "/",
      "//x",
      "/a/.b/..c/...",
      "/a/b.",
      "rel/x",
      "./x",
      "../x",
      "",
      ".",
    ];
    for (const path of cases)
      expect({ path, got: absoluteFrom("/base/dir", path) }).toEqual({
        path,
        got: resolve("/base/dir", path),
      });
  });

  it("agrees with path.resolve on random paths of /, . and names", () => {
    const random = seededRandom(3);
    const pieces = ["/", ".", "..", "a", "b.c", "/", "/", " "];
    for (let i = 0; i < 5000; i++) {
      let path = "";
      const n = Math.floor(random() * 10);
      for (let k = 0; k < n; k++) path += pieces[Math.floor(random() * pieces.length)];
      expect({ path, got: absoluteFrom("/base", path) }).toEqual({ path, got: resolve("/base", path) });
    }
  });

  it("returns a normal absolute path itself, without rewriting it", () => {
    const path = "/srv/repo/src/feature1/module12.ts";
    expect(absoluteFrom("/elsewhere", path)).toBe(path);
  });
});

describe("isInsideOrEqual", () => {
  it("compares whole components", () => {
    const cases: [string, string, boolean][] = [
      ["/proj", "/proj", true],
      ["/proj", "/proj/a/b", true],
      ["/proj", "/proj-evil", false],
      ["/proj", "/projx/a", false],
      ["/proj", "/pro", false],
      ["/proj/", "/proj/a", true],
      ["/proj/", "/proj", false],
      ["/", "/a", true],
      ["/", "/", true],
      ["/a/b", "/a", false],
    ];
    for (const [parent, child, inside] of cases) {
      expect({ parent, child, inside: isInsideOrEqual(parent, child) }).toEqual({ parent, child, inside });
    }
  });

  it("agrees with the prefix test on random paths", () => {
    const random = seededRandom(9);
    const pieces = ["/", "a", "ab", "-", "/", "b"];
    const path = () => {
      let p = "";
      const n = Math.floor(random() * 7);
      for (let k = 0; k < n; k++) p += pieces[Math.floor(random() * pieces.length)];
      return p;
    };
    for (let i = 0; i < 5000; i++) {
      const parent = path();
      const child = random() < 0.5 ? parent + path() : path();
      const expected = child === parent || child.startsWith(parent.endsWith("/") ? parent : `${parent}/`);
      expect({ parent, child, inside: isInsideOrEqual(parent, child) }).toEqual({
        parent,
        child,
        inside: expected,
      });
    }
  });
});
