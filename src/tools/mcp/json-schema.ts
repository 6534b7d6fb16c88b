import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type { JsonSchemaType } from "@modelcontextprotocol/sdk/validation";
import { z } from "zod";
import type { AskField } from "../types.js";

/** A JSON Schema object as a server sends it. */
export type JsonSchema = Record<string, unknown>;

/** What the loop needs from a server's input schema. */
export interface ConvertedSchema {
  /** A zod object the loop validates proposed args with (and makes partial for ask-the-user fields). */
  schema: z.ZodObject;
  /** The server's own schema, as the model is shown it. */
  parameters: JsonSchema;
  /**
   * Set when zod could not express the schema: the full JSON Schema check that runs before the
   * call instead, returning a correctable message, or undefined when the args pass.
   */
  check?: (args: unknown) => string | undefined;
}

const ajv = new AjvJsonSchemaValidator();

/**
 * Turns an MCP tool's `inputSchema` into the loop's zod object. `z.fromJSONSchema` covers
 * what servers send in practice; a schema it cannot express falls back to a loose object
 * plus a JSON Schema (ajv) check, so bad args are still refused before the server is called.
 */
export function convertInputSchema(inputSchema: JsonSchema): ConvertedSchema {
  const { $schema: _dialect, ...parameters } = withDefsKeyword(inputSchema);
  try {
    const schema = z.fromJSONSchema(parameters as Parameters<typeof z.fromJSONSchema>[0]);
    if (schema instanceof z.ZodObject) return { schema, parameters };
  } catch {
    // Falls through to the ajv check below.
  }
  return { schema: looseShape(parameters), parameters, check: ajvCheck(parameters) };
}

/**
 * The required fields whose allowed values are a closed list of strings: the user can pick
 * one when the model leaves it out, instead of the call failing.
 */
export function askableFields(parameters: JsonSchema): Record<string, AskField> {
  const required = Array.isArray(parameters.required) ? (parameters.required as unknown[]) : [];
  const properties = isRecord(parameters.properties) ? parameters.properties : {};
  const fields: Record<string, AskField> = {};
  for (const name of required) {
    if (typeof name !== "string") continue;
    const property = properties[name];
    if (!isRecord(property) || !Array.isArray(property.enum) || property.enum.length === 0) continue;
    if (!property.enum.every((value) => typeof value === "string")) continue;
    const described = property.description ?? property.title;
    fields[name] = {
      description: typeof described === "string" && described.length > 0 ? described : `Value of ${name}`,
      enum: property.enum as string[],
    };
  }
  return fields;
}

/** Draft-07 servers (zod-to-json-schema) put shared parts under `definitions`; zod resolves `$defs`. */
function withDefsKeyword(schema: JsonSchema): JsonSchema {
  if (!isRecord(schema.definitions) || schema.$defs !== undefined) return schema;
  const { definitions, ...rest } = schema;
  const rewritten = JSON.parse(JSON.stringify(rest).replaceAll('"#/definitions/', '"#/$defs/')) as JsonSchema;
  return { ...rewritten, $defs: definitions };
}

function looseShape(parameters: JsonSchema): z.ZodObject {
  const properties = isRecord(parameters.properties) ? Object.keys(parameters.properties) : [];
  return z.looseObject(Object.fromEntries(properties.map((name) => [name, z.unknown().optional()])));
}

function ajvCheck(parameters: JsonSchema): ConvertedSchema["check"] {
  try {
    const validate = ajv.getValidator(parameters as JsonSchemaType);
    return (args) => {
      const result = validate(args);
      return result.valid ? undefined : result.errorMessage;
    };
  } catch {
    // A schema neither zod nor ajv can read: the server stays the judge of its own args.
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
