/**
 * @module tools/shell/display
 * A command as a person approving it should read it: runs of spaces and tabs collapse to one space and the
 * ends are trimmed; every hidden character is written out by the one display-safe rule (core/confirmation).
 */
import { displaySafe } from "../../core/index.js";

/**
 * The command as it will run, made safe to display.
 * @example displayCommand("ls\u202E -la\x1b[2J") // "ls<U+202E> -la\\x1b[2J"
 */
export function displayCommand(command: string): string {
  return displaySafe(command.replace(/[ \t]+/g, " "), false).trim();
}
