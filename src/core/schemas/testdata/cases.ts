/**
 * @module core/schemas/testdata/cases
 * The shared case file of provider schema lowering: representative tool schemas, each run against every
 * provider by the golden-file test (`<provider>.golden.json` holds the expected payload and report).
 */
import { defineTool } from "../../define-tool.js";
import { okResult } from "../../errors.js";
import type { JsonSchema, Tool } from "../../types.js";

export interface SchemaCase {
  /** The tool name, and what the case is about. */
  name: string;
  note: string;
  description: string;
  parameters: JsonSchema;
}

export const SCHEMA_CASES: readonly SchemaCase[] = [
  {
    name: "read_file",
    note: "simple: required string, optional integers with bounds",
    description: "Reads a text file.",
    parameters: {
      type: "object",
      properties: {
        path: { type: "string", description: "File path, relative to the workspace root" },
        startLine: { type: "integer", minimum: 1, description: "First line to read (1-based)" },
        endLine: { type: "integer", minimum: 1, description: "Last line to read (inclusive)" },
      },
      required: ["path"],
    },
  },
  {
    name: "create_event",
    note: "nested objects, required at each level",
    description: "Creates a calendar event.",
    parameters: {
      type: "object",
      properties: {
        title: { type: "string" },
        when: {
          type: "object",
          properties: {
            start: { type: "string", format: "date-time" },
            end: { type: "string", format: "date-time" },
          },
          required: ["start"],
        },
        location: {
          type: "object",
          description: "Where it happens",
          properties: {
            name: { type: "string" },
            address: {
              type: "object",
              properties: { street: { type: "string" }, city: { type: "string" } },
              required: ["city"],
              additionalProperties: false,
            },
          },
          required: ["name"],
        },
      },
      required: ["title", "when"],
    },
  },
  {
    name: "apply_edits",
    note: "array of objects, minItems, optional boolean with default",
    description: "Applies text replacements to a file.",
    parameters: {
      type: "object",
      properties: {
        path: { type: "string" },
        edits: {
          type: "array",
          minItems: 1,
          items: {
            type: "object",
            properties: {
              oldText: { type: "string", minLength: 1 },
              newText: { type: "string" },
              replaceAll: { type: "boolean", default: false },
            },
            required: ["oldText", "newText"],
          },
        },
      },
      required: ["path", "edits"],
    },
  },
  {
    name: "set_log_level",
    note: "enums of strings and numbers, const, optional enum",
    description: "Changes how much the server logs.",
    parameters: {
      type: "object",
      properties: {
        level: { type: "string", enum: ["debug", "info", "warn", "error"] },
        verbosity: { type: "integer", enum: [0, 1, 2] },
        target: { const: "server" },
        format: { type: "string", enum: ["text", "json"], description: "Output format" },
      },
      required: ["level", "target"],
    },
  },
  {
    name: "search_web",
    note: "format, default, examples, length and range limits, $schema and title annotations",
    description: "Searches the web.",
    parameters: {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      title: "SearchWebArgs",
      type: "object",
      properties: {
        query: { type: "string", minLength: 1, maxLength: 200, examples: ["node 20 release notes"] },
        limit: { type: "integer", minimum: 1, maximum: 50, default: 10 },
        since: { type: "string", format: "date", description: "Only results after this day" },
        site: { type: "string", format: "hostname" },
        region: { type: "string", format: "iso-3166-1", pattern: "^[A-Z]{2}$" },
        tags: { type: "array", items: { type: "string" }, uniqueItems: true, maxItems: 5 },
      },
      required: ["query"],
    },
  },
  {
    name: "ship_order",
    note: "$defs and $ref: a definition used twice, one use optional and described",
    description: "Ships an order.",
    parameters: {
      type: "object",
      properties: {
        orderId: { type: "string" },
        shipping: { $ref: "#/$defs/address" },
        billing: { $ref: "#/$defs/address", description: "Defaults to the shipping address" },
      },
      required: ["orderId", "shipping"],
      $defs: {
        address: {
          type: "object",
          properties: {
            street: { type: "string" },
            city: { type: "string" },
            zip: { type: "string", pattern: "^[0-9]{5}$" },
          },
          required: ["street", "city"],
        },
      },
    },
  },
  {
    name: "categorize",
    note: "recursive $ref through draft-07 definitions",
    description: "Files items into a category tree.",
    parameters: {
      type: "object",
      properties: { root: { $ref: "#/definitions/node" } },
      required: ["root"],
      definitions: {
        node: {
          type: "object",
          properties: {
            label: { type: "string" },
            children: { type: "array", items: { $ref: "#/definitions/node" } },
          },
          required: ["label"],
        },
      },
    },
  },
  {
    name: "fetch_source",
    note: "oneOf of objects, anyOf of plain types, anyOf with null",
    description: "Fetches a document from a file or a URL.",
    parameters: {
      type: "object",
      properties: {
        source: {
          oneOf: [
            { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
            { type: "object", properties: { url: { type: "string", format: "uri" } }, required: ["url"] },
          ],
        },
        timeout: { anyOf: [{ type: "integer" }, { type: "string" }], description: "Seconds, or a duration" },
        encoding: { anyOf: [{ type: "string" }, { type: "null" }] },
      },
      required: ["source"],
    },
  },
  {
    name: "find_user",
    note: "composition at the root (anyOf of required sets)",
    description: "Finds a user by id or by email.",
    parameters: {
      type: "object",
      properties: { id: { type: "string" }, email: { type: "string", format: "email" } },
      anyOf: [{ required: ["id"] }, { required: ["email"] }],
    },
  },
  {
    name: "set_env",
    note: "what strict mode cannot express: an open map and patternProperties",
    description: "Runs a command with extra environment variables.",
    parameters: {
      type: "object",
      properties: {
        command: { type: "string" },
        env: { type: "object", additionalProperties: { type: "string" } },
        labels: { type: "object", patternProperties: { "^[a-z]+$": { type: "string" } } },
      },
      required: ["command"],
    },
  },
  {
    name: "list_todos",
    note: "no parameters at all",
    description: "Lists the open todos.",
    parameters: { type: "object" },
  },
];

/** The cases as tools (registered through `defineTool`, as every tool is). */
export function caseTools(cases: readonly SchemaCase[] = SCHEMA_CASES): Tool[] {
  return cases.map((c) =>
    defineTool({
      name: c.name,
      description: c.description,
      parameters: c.parameters,
      kind: "other",
      risk: "low",
      run: async () => okResult("ok"),
    }),
  );
}
