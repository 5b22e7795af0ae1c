/**
 * @module state/paths
 * Where state lives: `<root>/.toolgate/state/` for a project, `$XDG_CONFIG_HOME/toolgate/state/` (or
 * `~/.config/toolgate/state/`, `%APPDATA%\toolgate\state\` on Windows) for the user.
 */
import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** File name of the memory store inside a state directory. */
export const MEMORY_FILE = "memory.json";
/** File name of the todo store inside a state directory. */
export const TODOS_FILE = "todos.json";

/** Which store a tool or command addresses. */
export type StateScope = "project" | "user";

/** What the user-directory functions read; injectable so tests never touch the real home directory. */
export interface UserDirEnvironment {
  env?: Readonly<Record<string, string | undefined>>;
  homeDir?: string;
  platform?: NodeJS.Platform;
}

/**
 * The user's toolgate configuration directory: `$XDG_CONFIG_HOME/toolgate` when that variable holds an
 * absolute path (the XDG spec says relative values are ignored), else `~/.config/toolgate`; on Windows
 * `%APPDATA%\toolgate`.
 * @example userConfigDir({ env: { XDG_CONFIG_HOME: "/x" } }) // "/x/toolgate"
 */
export function userConfigDir(where: UserDirEnvironment = {}): string {
  const env = where.env ?? process.env;
  const home = where.homeDir ?? homedir();
  const platform = where.platform ?? process.platform;
  if (platform === "win32" && env.APPDATA) return join(env.APPDATA, "toolgate");
  const xdg = env.XDG_CONFIG_HOME;
  if (xdg?.startsWith("/")) return join(xdg, "toolgate");
  return join(home, ".config", "toolgate");
}

/**
 * The user-scope state directory (`<userConfigDir>/state`). Hosts add it to the workspace's protected paths
 * so that no file-writing tool can write the stores.
 */
export function userStateDir(where: UserDirEnvironment = {}): string {
  return join(userConfigDir(where), "state");
}

/** The project-scope state directory of a workspace root: `<root>/.toolgate/state`. */
export function projectStateDir(root: string): string {
  return join(resolve(root), ".toolgate", "state");
}

/** Where the stores of a scope live: the project root, and optionally the user state dir (for tests). */
export interface StateLocation {
  /** Workspace root (project scope). */
  root: string;
  /** User state directory; default {@link userStateDir}(). */
  userDir?: string;
}

/** The state directory of a scope. */
export function stateDirFor(scope: StateScope, where: StateLocation): string {
  return scope === "user" ? resolve(where.userDir ?? userStateDir()) : projectStateDir(where.root);
}

/** The memory file of a scope. */
export function memoryFilePath(scope: StateScope, where: StateLocation): string {
  return join(stateDirFor(scope, where), MEMORY_FILE);
}

/** The todo file of a scope. */
export function todosFilePath(scope: StateScope, where: StateLocation): string {
  return join(stateDirFor(scope, where), TODOS_FILE);
}
