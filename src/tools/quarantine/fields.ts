/**
 * @module tools/quarantine/fields
 * The schema the quarantined reader's caller gives (docs/injection.md): a flat object of named fields, each
 * a string, a number, an integer, a boolean or one of listed values. What the model reading untrusted text
 * can put in a field decides its label: a string can carry any words the text's author chose, so it stays
 * untrusted; an enum value is one the caller listed, a number or a boolean carries no instructions, so they
 * come back trusted. Anything richer (nested objects, arrays, patterns) is refused rather than guessed at.
 */
import { type Integrity, type JsonSchema, ParamValidator, type Tool } from "../../core/index.js";

/** The most fields one schema may have, and values one enum may list. */
export const MAX_FIELDS = 32;
export const MAX_ENUM = 64;
const MAX_ENUM_CHARS = 200;

/** The keywords each field kind may use (descriptions and bounds; nothing that could nest). */
const ALLOWED: Readonly<Record<string, ReadonlySet<string>>> = {
  string: new Set(["type", "description", "maxLength", "minLength"]),
  number: new Set(["type", "description", "minimum", "maximum"]),
  integer: new Set(["type", "description", "minimum", "maximum"]),
  boolean: new Set(["type", "description"]),
  enum: new Set(["type", "description", "enum"]),
};
/** Bounds a provider's strict mode may not take: checked here, after the reply, not sent. */
const LOCAL_ONLY = new Set(["maxLength", "minLength", "minimum", "maximum"]);

/** One field: its kind, and the label of what the model puts in it. */
export interface Field {
  kind: "string" | "number" | "integer" | "boolean" | "enum";
  integrity: Integrity;
}

/** A checked schema: its fields, what goes to the provider, what the reply is validated against. */
export interface ReaderSchema {
  fields: ReadonlyMap<string, Field>;
  /** Sent to the provider's structured-output mode: every field required, nothing else allowed. */
  wire: JsonSchema;
  /** The same with the bounds, validated locally. */
  check: JsonSchema;
}

/** The field kind of one property, or a problem. */
function fieldKind(name: string, raw: unknown): Field["kind"] | string {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw))
    return `schema field ${JSON.stringify(name)} must be an object such as {"type": "string"}`;
  const s = raw as Record<string, unknown>;
  let kind: Field["kind"];
  if (s.enum !== undefined) {
    const values = s.enum;
    if (!Array.isArray(values) || values.length === 0 || values.length > MAX_ENUM)
      return `schema field ${JSON.stringify(name)}: enum must list 1 to ${MAX_ENUM} values`;
    for (const v of values) {
      const scalar = typeof v === "number" || typeof v === "boolean" || typeof v === "string";
      if (!scalar || (typeof v === "string" && v.length > MAX_ENUM_CHARS))
        return `schema field ${JSON.stringify(name)}: enum values must be strings of at most ${MAX_ENUM_CHARS} characters, numbers or booleans`;
    }
    kind = "enum";
  } else if (typeof s.type === "string" && s.type in ALLOWED && s.type !== "enum") {
    kind = s.type as Field["kind"];
  } else {
    return `schema field ${JSON.stringify(name)} must have type "string", "number", "integer" or "boolean", or an enum`;
  }
  for (const key of Object.keys(s))
    if (!ALLOWED[kind]!.has(key))
      return `schema field ${JSON.stringify(name)}: ${JSON.stringify(key)} is not supported (a field is a string, number, integer, boolean or enum, with a description and bounds)`;
  return kind;
}

/**
 * Checks the caller's schema and builds what the provider and the validator get.
 * @returns the schema, or a message saying what is wrong (`invalid_params`).
 */
export function readerSchema(raw: { properties?: unknown; type?: unknown }): ReaderSchema | string {
  if (raw.type !== undefined && raw.type !== "object") return 'schema type must be "object"';
  const props = raw.properties;
  if (props === null || typeof props !== "object" || Array.isArray(props))
    return "schema.properties must name the fields to extract";
  const names = Object.keys(props);
  if (names.length === 0 || names.length > MAX_FIELDS)
    return `schema.properties must name 1 to ${MAX_FIELDS} fields`;
  const fields = new Map<string, Field>();
  const wireProps: Record<string, unknown> = {};
  const checkProps: Record<string, unknown> = {};
  for (const name of names) {
    const spec = (props as Record<string, unknown>)[name] as Record<string, unknown>;
    const kind = fieldKind(name, spec);
    if (!(kind in ALLOWED)) return kind;
    const field: Field = {
      kind: kind as Field["kind"],
      integrity: kind === "string" ? "untrusted" : "trusted",
    };
    fields.set(name, field);
    checkProps[name] = { ...spec };
    wireProps[name] = Object.fromEntries(Object.entries(spec).filter(([k]) => !LOCAL_ONLY.has(k)));
  }
  const shape = (properties: Record<string, unknown>): JsonSchema => ({
    type: "object",
    properties,
    required: names,
    additionalProperties: false,
  });
  return { fields, wire: shape(wireProps), check: shape(checkProps) };
}

/** A reply's problems against the checked schema (ajv, as tool arguments are checked), or none. */
export function replyProblems(schema: ReaderSchema, value: unknown): string[] {
  if (value === null || typeof value !== "object" || Array.isArray(value))
    return ["the reply is not a JSON object"];
  // The pipeline's validator, over a stand-in tool whose parameters are the schema (compiled once per call).
  const standIn = { name: "reply", parameters: schema.check } as unknown as Tool;
  const outcome = new ParamValidator().validate(standIn, value);
  return outcome.ok ? [] : outcome.problems;
}

/** The reply's label: untrusted when a string field came back, or when the caller's context was untrusted. */
export function replyIntegrity(schema: ReaderSchema, callerIntegrity: Integrity | undefined): Integrity {
  if (callerIntegrity === "untrusted") return "untrusted";
  for (const field of schema.fields.values()) if (field.integrity === "untrusted") return "untrusted";
  return "trusted";
}
