import { Hono } from "hono";
import type { ToolRegistry } from "../tools/registry.js";
import { toolViews } from "../tools/tool-view.js";
import type { AppEnv } from "./auth/auth.js";

/**
 * `GET /api/tools`: the tools the caller's role may call, each with its effective policy
 * (config overrides applied) and whether its server is up. Tools the role may not call are
 * left out, as they are refused to it anyway.
 */
export function toolRoutes(registry: ToolRegistry): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.get("/", (c) => c.json({ tools: toolViews(registry, c.get("user").role) }));
  return routes;
}
