#!/usr/bin/env python3
# A gemini-cli BeforeTool hook (matcher "write_file|replace"): no edits to .env files.
import json, os, sys

event = json.load(sys.stdin)
path = event.get("tool_input", {}).get("file_path", "")
if os.path.basename(path).startswith(".env"):
    print(json.dumps({"decision": "deny", "reason": f"edits to {os.path.basename(path)} are blocked"}))
sys.exit(0)
