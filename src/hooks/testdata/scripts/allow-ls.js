#!/usr/bin/env node
// A toolgate-format pre_tool hook: vouches for plain `ls` commands.
let text = "";
process.stdin.on("data", (d) => (text += d));
process.stdin.on("end", () => {
  const { args } = JSON.parse(text);
  if (/^ls( |$)/.test(String(args.command)))
    process.stdout.write(JSON.stringify({ decision: "allow", reason: "ls only reads" }));
});
