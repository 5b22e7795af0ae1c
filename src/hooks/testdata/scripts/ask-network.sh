#!/usr/bin/env bash
# A gemini-cli BeforeTool hook (matcher "run_shell_command"): network commands need a person's yes.
input=$(cat)
if printf '%s' "$input" | grep -Eq '"command": *"[^"]*\b(curl|wget|ssh|nc)\b'; then
  printf '{"decision":"ask","reason":"this command uses the network"}\n'
fi
