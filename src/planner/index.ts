/**
 * @module planner
 * The planner guard's front door, published as `toolgate/planner`: turns a model's reply into safe,
 * well-formed tool calls. Everything exported here is public (a test pins the list); other folders import
 * the planner only through this file.
 */

export { type NativeCalls, parseNativeCalls } from "./parse-native.js";
export { parseStructuredCalls, type StructuredCalls } from "./parse-text.js";
export { plan } from "./plan.js";
export { DEFAULT_PROFILE, mergeProfiles, parsePlannerProfile, profileForTools } from "./profile.js";
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
