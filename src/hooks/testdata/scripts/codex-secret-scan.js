#!/usr/bin/env node
// A Codex PostToolUse hook (matcher "Bash"): a credential in a command's output is kept from the model.
let text = "";
process.stdin.on("data", (d) => (text += d));
process.stdin.on("end", () => {
  const event = JSON.parse(text);
  const output =
    typeof event.tool_response === "string" ? event.tool_response : JSON.stringify(event.tool_response);
  if (/AKIA[0-9A-Z]{16}/.test(output)) {
    process.stdout.write(JSON.stringify({ decision: "block", reason: "the output holds a credential" }));
  }
});
