#!/usr/bin/env node
// A Claude Code PreToolUse hook (matcher "Bash"): no pushes to main or master.
let text = "";
process.stdin.on("data", (d) => (text += d));
process.stdin.on("end", () => {
  const { tool_input: input = {} } = JSON.parse(text);
  const command = String(input.command ?? "");
  if (/\bgit\s+push\b/.test(command) && /\b(main|master)\b/.test(command)) {
    const out = {
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "deny",
        permissionDecisionReason: "pushes to main go through a pull request",
      },
    };
    process.stdout.write(JSON.stringify(out));
  }
});
