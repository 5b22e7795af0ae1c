/**
 * @module api/planner
 * `toolgate/planner`: the planner guard, which turns a model's reply into safe, well-formed tool calls, and
 * the profiles that tune it. The planner is published here only (the root entry does not repeat it). This
 * file is the whole public list of the subpath (a test pins it; docs/public-api.md is generated from it): a
 * name added here is public, the planner folder's own front door is not.
 */
export {
  type ArgSource,
  type ArgTemplate,
  DEFAULT_PROFILE,
  type ModelReply,
  mergeProfiles,
  type PlanInput,
  type PlanMethod,
  type PlannedCall,
  type PlannerProfile,
  type PlanResult,
  parsePlannerProfile,
  parseRoutingPlan,
  plan,
  profileForTools,
  type RoutingPlan,
  replyFromResponse,
  type SkippedCall,
  type ToolNeed,
  type ToolRule,
} from "../planner/index.js";
