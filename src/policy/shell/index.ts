/**
 * @module policy/shell
 * Shell command analysis for the policy: parse with the bash grammar, extract every sub-command's words, say
 * what a prefix rule cannot vouch for, classify risk; and the `command` argument kind built on it.
 * Anything added here is public to the rest of toolgate. The parser is not exported here: its declarations
 * name web-tree-sitter's Emscripten types, which must stay out of the published declaration graph.
 */
export { analyzeCommand, analyzeCommandSync, type CommandAnalysis, type CommandFinding } from "./analyze.js";
export {
  COMMAND_OPERATORS,
  type CommandKindOptions,
  commandFolder,
  createCommandKind,
  matchCommand,
} from "./command-kind.js";
export type { CommandPlace } from "./places.js";
export { type Effect, type Finding, programFindings, programs } from "./programs/index.js";
export { classifyRisk, type RiskAssessment, type RiskInput } from "./risk.js";
export { commandBase, type Unwrapped, unwrap } from "./wrappers.js";
