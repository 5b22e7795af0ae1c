#!/usr/bin/env python3
# A Codex PreToolUse hook (matcher "Edit|Write"): no changes to .env files. Codex shows every file change as
# apply_patch, the patch text in tool_input.command; the file names are on its "*** ... File:" lines.
import json, os, re, sys

event = json.load(sys.stdin)
patch = str(event.get("tool_input", {}).get("command", ""))
for path in re.findall(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$", patch, re.M):
    name = os.path.basename(path)
    if name.startswith(".env"):
        reason = f"changes to {name} are blocked"
        out = {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": reason}
        print(json.dumps({"hookSpecificOutput": out}))
        break
