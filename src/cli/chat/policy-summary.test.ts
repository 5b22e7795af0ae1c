import { describe, expect, it } from "vitest";
import { parsePolicy } from "../../policy/index.js";
import { ruleSummary } from "./policy-summary.js";

async function summaries(toml: string): Promise<string[]> {
  const policy = await parsePolicy(toml, "policy.toml");
  return policy.rules.map(ruleSummary);
}

describe("ruleSummary", () => {
  it("writes a rule in the policy file's own words, with its id and line", async () => {
    const [line] = await summaries(
      '\n[[rules]]\ntool = "web_fetch"\ndecision = "ask"\nwhen.url = { prefix = "https://x.example/" }\nrisk = "high"\nmessage = "careful"\n',
    );
    expect(line).toBe(
      'policy.toml#1 (line 2): tool = "web_fetch", decision = "ask", when.url = { prefix = "https://x.example/" }, risk = "high", message = "careful"',
    );
  });

  it("says a rule without kind or conditions covers every call, and names its kinds otherwise", async () => {
    const [all, byKind] = await summaries(
      '[[rules]]\ntool = "*"\ndecision = "deny"\n[[rules]]\ntool = "*"\ndecision = "allow"\nkind = ["read", "search"]\n',
    );
    expect(all).toMatch(/tool = "\*", decision = "deny" — every call of the tool$/);
    expect(byKind).toMatch(/tool = "\*", decision = "allow", kind = \["read", "search"\]$/);
  });

  it("cuts a long list after six items and counts the rest", async () => {
    const tools = Array.from({ length: 9 }, (_, i) => `"t${i}"`).join(", ");
    const [line] = await summaries(`[[rules]]\ntool = [${tools}]\ndecision = "ask"\n`);
    expect(line).toContain('tool = ["t0", "t1", "t2", "t3", "t4", "t5", … 3 more]');
  });
});
