import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Hono, type Context } from "hono";
import type { AppEnv } from "./auth/auth.js";

/**
 * Chart.js's browser build, found through the installed package so the page needs no CDN and
 * the library never sits in git; its `exports` hide `dist/`, so the path goes by the main entry.
 */
export const CHART_JS_FILE = join(dirname(createRequire(import.meta.url).resolve("chart.js")), "chart.umd.js");

/** The URL the dashboard loads Chart.js from. */
export const CHART_JS_PATH = "/vendor/chart.umd.js";

/**
 * `/dashboard` (the page in `publicDir`) and Chart.js at a fixed path. Both are static and open,
 * like the main page: the figures come from `/api/records/summary`, which checks the caller.
 */
export function dashboardRoutes(publicDir: string): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.get("/dashboard", (c) =>
    sendFile(c, join(publicDir, "dashboard.html"), "text/html; charset=utf-8", "no-cache"),
  );
  // The file changes only with the installed version, so a day's cache spares a reload of 200 kB.
  routes.get(CHART_JS_PATH, (c) =>
    sendFile(c, CHART_JS_FILE, "text/javascript; charset=utf-8", "public, max-age=86400"),
  );
  return routes;
}

async function sendFile(c: Context<AppEnv>, path: string, contentType: string, cacheControl: string) {
  const body = await readFile(path);
  return c.body(body, 200, { "Content-Type": contentType, "Cache-Control": cacheControl });
}
