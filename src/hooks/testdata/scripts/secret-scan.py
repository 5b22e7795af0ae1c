#!/usr/bin/env python3
# A Claude Code PostToolUse hook: keeps secrets in a tool's output away from the model.
import json, re, sys

event = json.load(sys.stdin)
output = str(event.get("tool_response", {}).get("output", ""))
if re.search(r"AKIA[0-9A-Z]{16}", output) or "PRIVATE KEY-----" in output:
    print(json.dumps({"decision": "block", "reason": "the output holds a credential"}))
else:
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "secret scan: clean"}}))
