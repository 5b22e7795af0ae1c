/** Where state lives: XDG rules for the user directory, the project layout. */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { memoryFilePath, projectStateDir, todosFilePath, userConfigDir, userStateDir } from "./paths.js";

describe("state paths", () => {
  const cases: [string, Parameters<typeof userConfigDir>[0], string][] = [
    [
      "XDG_CONFIG_HOME",
      { env: { XDG_CONFIG_HOME: "/xdg" }, homeDir: "/home/u", platform: "linux" },
      "/xdg/toolgate",
    ],
    ["no XDG_CONFIG_HOME", { env: {}, homeDir: "/home/u", platform: "linux" }, "/home/u/.config/toolgate"],
    [
      "empty XDG_CONFIG_HOME",
      { env: { XDG_CONFIG_HOME: "" }, homeDir: "/home/u", platform: "linux" },
      "/home/u/.config/toolgate",
    ],
    // The XDG spec: a relative value is invalid and must be ignored (it would resolve against the cwd).
    [
      "relative XDG_CONFIG_HOME",
      { env: { XDG_CONFIG_HOME: "cfg" }, homeDir: "/home/u", platform: "linux" },
      "/home/u/.config/toolgate",
    ],
    ["macOS", { env: {}, homeDir: "/Users/u", platform: "darwin" }, "/Users/u/.config/toolgate"],
    [
      "Windows",
      { env: { APPDATA: "C:\\AppData" }, homeDir: "C:\\u", platform: "win32" },
      join("C:\\AppData", "toolgate"),
    ],
  ];
  it.each(cases)("user config dir with %s", (_note, where, expected) => {
    expect(userConfigDir(where)).toBe(expected);
    expect(userStateDir(where)).toBe(join(expected, "state"));
  });

  it("puts project state under .toolgate/state and user state in the user dir", () => {
    expect(projectStateDir("/ws")).toBe("/ws/.toolgate/state");
    expect(memoryFilePath("project", { root: "/ws" })).toBe("/ws/.toolgate/state/memory.json");
    expect(todosFilePath("project", { root: "/ws/sub/.." })).toBe("/ws/.toolgate/state/todos.json");
    expect(memoryFilePath("user", { root: "/ws", userDir: "/u/state" })).toBe("/u/state/memory.json");
    expect(todosFilePath("user", { root: "/ws", userDir: "/u/state" })).toBe("/u/state/todos.json");
  });
});
