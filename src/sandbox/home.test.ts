/**
 * What stays visible of the home folder: the list (home-visible.json), PATH entries and toolchain variables
 * inside it (never the home folder itself), and `[sandbox] readable`. docs/sandbox.md shows the list generated
 * from the data: `UPDATE_DOCS=1 npx vitest run src/sandbox/home.test.ts` rewrites the section.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { HOME_TOOLCHAIN_VARIABLES, HOME_VISIBLE, visibleInHome } from "./home.js";

const page = new URL("../../docs/sandbox.md", import.meta.url);
const START = "<!-- home-visible:start (generated from src/sandbox/home-visible.json) -->";
const END = "<!-- home-visible:end -->";

function table(): string {
  const parts = (e: (typeof HOME_VISIBLE)[number]) =>
    e.show ? e.show.map((p) => `\`${p}\``).join(", ") : "all of it";
  const rows = HOME_VISIBLE.map((e) => `| \`~/${e.path}\` | ${parts(e)} | ${e.why} |`);
  const variables = HOME_TOOLCHAIN_VARIABLES.map((v) => `\`${v}\``).join(", ");
  return [
    "| shown read-only | which parts (`*`: any one name but `etc` or a secret's; `/`: folders only) | why a build needs it |",
    "| --- | --- | --- |",
    ...rows,
    "",
    `Also shown, read-only, when inside the home folder: each folder on \`PATH\` (whole), and the folders ${variables} name (the same parts as their entry; a JDK's or Go's folders but \`etc\`).`,
  ].join("\n");
}

describe("visibleInHome", () => {
  it("lists the built-in entries, PATH folders and toolchain variables inside the home folder", () => {
    const seen = visibleInHome(
      "/home/u",
      { PATH: "/home/u/bin:/usr/bin:/home/u:relative", CARGO_HOME: "/home/u/rust/cargo", GOROOT: "/usr/go" },
      ["/home/u/notes", "/srv/data"],
    );
    const paths = new Map(seen.map((v) => [v.path, v.from]));
    expect(paths.get("/home/u/.nvm")).toBe("list");
    expect(paths.get("/home/u/bin")).toBe("PATH");
    expect(paths.get("/home/u/rust/cargo")).toBe("CARGO_HOME");
    expect(paths.get("/home/u/notes")).toBe("config");
    expect(paths.has("/home/u")).toBe(false); // never the whole home folder from PATH
    expect(paths.has("/usr/go")).toBe(false); // outside the home folder: the system shows it anyway
    expect(paths.has("/srv/data")).toBe(false);
  });

  it("shows the whole home folder only when the user's config says so", () => {
    const seen = visibleInHome("/home/u", {}, ["/home/u"]);
    expect(seen.find((v) => v.path === "/home/u")?.from).toBe("config");
  });

  it("is listed in docs/sandbox.md", () => {
    const text = readFileSync(page, "utf8");
    const from = text.indexOf(START);
    const to = text.indexOf(END);
    expect(from, "docs/sandbox.md lacks the home-visible markers").toBeGreaterThan(-1);
    const want = `${START}\n${table()}\n${END}`;
    if (process.env.UPDATE_DOCS === "1") {
      writeFileSync(page, text.slice(0, from) + want + text.slice(to + END.length));
      return;
    }
    expect(text.slice(from, to + END.length)).toBe(want);
  });
});
