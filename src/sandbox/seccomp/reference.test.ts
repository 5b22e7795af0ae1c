/**
 * docs/sandbox.md shows the seccomp filter's table generated from rules.json and abi/*.json: this test fails
 * when the page is stale. `UPDATE_DOCS=1 npx vitest run src/sandbox/seccomp/reference.test.ts` rewrites it.
 */
import { readFile, writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { ABIS, type Abi } from "./abi.js";
import { SECCOMP_RULES, type SeccompCondition, type SeccompRule } from "./program.js";

const page = new URL("../../../docs/sandbox.md", import.meta.url);
const START = "<!-- seccomp-table:start (generated from src/sandbox/seccomp/rules.json and abi/*.json) -->";
const END = "<!-- seccomp-table:end -->";

const code = (name: string) => `\`${name}\``;
const list = (names: readonly string[], last: "or" | "and") =>
  names.length === 1
    ? code(names[0]!)
    : `${names.slice(0, -1).map(code).join(", ")} ${last} ${code(names[names.length - 1]!)}`;

function condition(c: SeccompCondition): string {
  const arg = `argument ${c.arg}${c.mask ? ` & ${code(c.mask)}` : ""}`;
  if (c.in) return `${arg} is ${list(c.in, "or")}`;
  if (c.notIn) return `${arg} is not ${list(c.notIn, "or")}`;
  return `${arg} has ${list(c.anyBit ?? [], "or")} set`;
}

function numbers(name: string, abis: readonly Abi[]): string {
  return abis.map((abi) => abi.syscalls[name] ?? "—").join(" / ");
}

/** The table: the checks before any rule, then one row per rule. */
function seccompTable(rules: readonly SeccompRule[], abis: readonly Abi[]): string {
  const arches = abis.map((abi) => abi.arch).join(" / ");
  const other = abis.map((abi) => `${abi.otherAbis.map((o) => o.name).join(", ")} on ${abi.arch}`).join("; ");
  const newest = abis.map((abi) => `${abi.reviewedThrough} on ${abi.arch}`).join(", ");
  const lines = [
    `| system call (${arches}) | refused when | answer | why |`,
    "| --- | --- | --- | --- |",
    `| any call through another ABI of the CPU: ${other} | always | the process is killed (\`SIGSYS\`, "Bad system call") | A process that switches ABI (\`int 0x80\`, a 32-bit program, an x32 call) would meet numbers this filter does not check; the 32-bit \`socketcall\` even hides its arguments in memory. |`,
    `| any number above the table's newest (${newest}) | always | \`ENOSYS\` | A call added to the kernel after the table was reviewed is refused the way an older kernel refuses it, so libraries fall back, until someone reviews it. |`,
  ];
  for (const rule of rules) {
    const when = rule.when?.map(condition).join(", and ") ?? "always";
    const why = rule.why.replaceAll("|", "\\|");
    const calls = rule.syscalls.map((name) => `${code(name)} (${numbers(name, abis)})`).join(", ");
    lines.push(`| ${calls} | ${when} | \`${rule.errno}\` | ${why} |`);
  }
  return lines.join("\n");
}

describe("docs/sandbox.md seccomp table", () => {
  it("matches rules.json and the syscall tables", async () => {
    const text = await readFile(page, "utf8");
    const from = text.indexOf(START);
    const to = text.indexOf(END);
    expect(from, "docs/sandbox.md lacks the seccomp-table markers").toBeGreaterThan(-1);
    const want = `${START}\n${seccompTable(SECCOMP_RULES, [...ABIS.values()])}\n${END}`;
    if (process.env.UPDATE_DOCS === "1") {
      await writeFile(page, text.slice(0, from) + want + text.slice(to + END.length));
      return;
    }
    expect(text.slice(from, to + END.length)).toBe(want);
  });
});
