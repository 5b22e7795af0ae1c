#!/usr/bin/env bash
# A Claude Code PreToolUse hook (matcher "Bash"): refuses `rm -rf` aimed at / or ~. Exit 2 blocks; stderr is the reason.
input=$(cat)
if printf '%s' "$input" | grep -Eq '"command": *"[^"]*rm +-[a-zA-Z]*(rf|fr)[a-zA-Z]* +(/|~)'; then
  echo "Blocked: rm -rf on / or ~ is never run" >&2
  exit 2
fi
exit 0
