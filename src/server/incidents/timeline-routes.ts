import type { Context, Hono } from "hono";
import type { Postmortems } from "../../service/postmortem/postmortems.js";
import type { AppEnv } from "../auth/auth.js";
import { errorResponse } from "../http-errors.js";

/**
 * `GET /api/incidents/:id/timeline` (JSON, UTC ISO 8601 times) and `/api/incidents/:id/postmortem`
 * (the draft, `text/markdown`; `?download=1` as an attachment), on the incident routes, behind
 * their role check. An unknown incident is 404, as is every incident while intake is off.
 */
export function addTimelineRoutes(routes: Hono<AppEnv>, postmortems: Postmortems | undefined): void {
  const unknown = (c: Context<AppEnv>, incidentId: string) =>
    errorResponse(c, 404, "incident_not_found", `No incident ${incidentId}.`);

  routes.get("/:incidentId/timeline", async (c) => {
    const incidentId = c.req.param("incidentId");
    const timeline = await postmortems?.timeline(incidentId);
    return timeline ? c.json(timeline) : unknown(c, incidentId);
  });

  routes.get("/:incidentId/postmortem", async (c) => {
    const incidentId = c.req.param("incidentId");
    const draft = await postmortems?.draft(incidentId);
    if (!draft) return unknown(c, incidentId);
    c.header("Content-Type", "text/markdown; charset=utf-8");
    c.header("X-Postmortem-Written-By", draft.writtenBy);
    c.header("Last-Modified", new Date(draft.writtenAt).toUTCString());
    if (c.req.query("download") === "1")
      c.header("Content-Disposition", `attachment; filename="postmortem-${incidentId}.md"`);
    return c.body(draft.markdown);
  });
}
