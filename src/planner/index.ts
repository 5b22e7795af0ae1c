/**
 * @module planner
 * The planner guard's front door: turns a model's reply into safe, well-formed tool calls. Everything
 * exported here is public; other folders import the planner only through this file.
 */

export { type BuildContext, buildCall, isApplicable, resolveSource } from "./build-call.js";
export { type CallsFromValue, callsFromValue, normalizeArgs } from "./call-shape.js";
export { findJiraKey, findJiraKeys, type JiraKeyOptions, NOT_JIRA_PROJECTS } from "./extract-jira.js";
export { escapeRegex, findGlob, findPath, findSearchTerm } from "./extract-text.js";
export {
  type ConfluenceRef,
  confluenceSearchText,
  findConfluenceRef,
  findUrl,
  findUrls,
} from "./extract-url.js";
export { balancedEnd, findJsonValues, parseJsonLenient } from "./json-scan.js";
export { findMentions, type Mention, type MentionedTools, mentionedTools } from "./mentions.js";
export { type NativeCalls, parseNativeCalls } from "./parse-native.js";
export { parseStructuredCalls, type StructuredCalls } from "./parse-text.js";
export { plan } from "./plan.js";
export {
  DEFAULT_PROFILE,
  inferToolRule,
  mergeProfiles,
  parsePlannerProfile,
  profileForTools,
} from "./profile.js";
export { parseRoutingPlan, replyFromResponse } from "./response.js";
export { type SplitReply, splitThinking, stripThinking } from "./strip-think.js";
export type {
  ArgSource,
  ArgTemplate,
  ModelReply,
  PlanInput,
  PlanMethod,
  PlannedCall,
  PlannerProfile,
  PlanResult,
  RoutingPlan,
  SkippedCall,
  ToolNeed,
  ToolRule,
} from "./types.js";
