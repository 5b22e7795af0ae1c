// Generated from src/config/schema.ts by `npm run generate` (src/generated.test.ts); do not edit.
import { deepFreeze } from "../utils/index.js";

/** Every section of the config file, each with its keys that have a default: the schema's own `.default`s. */
export const CONFIG_DEFAULTS = deepFreeze({
  "web": {
    "allow_hosts": []
  },
  "search": {
    "backend": "duckduckgo"
  },
  "shell": {
    "env": []
  },
  "files": {
    "protected": []
  },
  "limits": {
    "max_chars": 64000,
    "max_lines": 2000
  },
  "audit": {},
  "labels": {
    "guard": true,
    "trusted_servers": []
  },
  "confirm": {
    "timeout_ms": 300000
  },
  "approvals": {
    "route": "local"
  },
  "jira": {},
  "confluence": {},
  "llm": {
    "provider": "ollama"
  },
  "planner": {},
  "fleet": {
    "audit_buffer": 10000
  },
  "sandbox": {
    "mode": "auto",
    "network": false,
    "allow_hosts": [],
    "writable": [],
    "hidden": [],
    "readable": [],
    "unchecked": []
  },
  "hooks": [],
  "hooks_may_allow": false,
  "hooks_fail": "closed"
});
