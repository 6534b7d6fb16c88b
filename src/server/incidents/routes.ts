import { createHash, timingSafeEqual } from "node:crypto";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { formatZodIssues } from "../../contracts/formats/zod-issues.js";
import { bearerToken } from "../../service/auth/credentials.js";
import type { Incidents } from "../../service/incidents/incidents.js";
import type { AppEnv } from "../auth/auth.js";
import { errorResponse, RequestError } from "../http-errors.js";
import { AlertmanagerPayloadSchema } from "./alertmanager-payload.js";
import { alertmanagerDelivery } from "./alert-message.js";
import { pagerdutyHandler, type PagerdutyIntake } from "./pagerduty-route.js";
import type { Postmortems } from "../../service/postmortem/postmortems.js";
import { addTimelineRoutes } from "./timeline-routes.js";

/** Largest webhook body read, in bytes: a group of 1,000 alerts fits. */
export const MAX_ALERT_BODY_BYTES = 1024 * 1024;

/** What alert intake is built from. */
export interface AlertIntake {
  /** Opens and follows incidents. */
  incidents: Incidents;
  /** Incidents' timelines and postmortem drafts (`GET /api/incidents/:id/timeline`, `/postmortem`). */
  postmortems?: Postmortems;
  /** `OPSPILOT_ALERT_TOKEN`; without it `POST /api/alerts/alertmanager` answers 404. */
  token?: string;
  /** `OPSPILOT_PAGERDUTY_SECRET` and the delivery memory; without it `POST /api/alerts/pagerduty` answers 404. */
  pagerduty?: PagerdutyIntake;
}

const digest = (token: string) => createHash("sha256").update(token).digest();

/**
 * `POST /api/alerts/alertmanager` and `POST /api/alerts/pagerduty`, mounted before the API's own
 * token check: Alertmanager holds its own bearer token, compared in constant time, and PagerDuty
 * signs each body (`pagerduty-route.ts`). Each route is off without its credential and answers
 * 404, so an unauthenticated intake is never offered and neither sender retries; either works alone.
 */
export function alertIntakeRoutes(intake: AlertIntake | undefined): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  const expected = intake?.token === undefined ? undefined : digest(intake.token);
  routes.use(
    "*",
    bodyLimit({
      maxSize: MAX_ALERT_BODY_BYTES,
      onError: (c) => {
        c.header("Connection", "close");
        return errorResponse(c, 413, "body_too_large", `The alert body exceeds ${MAX_ALERT_BODY_BYTES} bytes.`);
      },
    }),
  );
  routes.post("/alertmanager", async (c) => {
    if (!intake || !expected)
      return errorResponse(c, 404, "intake_off", "Alert intake is off: set OPSPILOT_ALERT_TOKEN to turn it on.");
    const token = bearerToken(c.req.header("authorization"));
    if (token === undefined || !timingSafeEqual(digest(token), expected)) {
      c.header("WWW-Authenticate", 'Bearer realm="opspilot-alerts"');
      throw new RequestError(401, "unauthorized", "A valid Authorization: Bearer <OPSPILOT_ALERT_TOKEN> is required.");
    }
    let body: unknown;
    try {
      body = JSON.parse(await c.req.text());
    } catch {
      throw new RequestError(400, "invalid_json", "The request body is not valid JSON.");
    }
    const parsed = AlertmanagerPayloadSchema.safeParse(body);
    if (!parsed.success) throw new RequestError(400, "invalid_payload", formatZodIssues(parsed.error));
    const { incidentId, outcome } = await intake.incidents.deliver(alertmanagerDelivery(parsed.data));
    return c.json({ incidentId, outcome }, 202);
  });
  routes.post("/pagerduty", pagerdutyHandler(intake?.incidents, intake?.pagerduty));
  return routes;
}

/** `GET /api/incidents`, `/api/incidents/:id` and its timeline and postmortem draft, for operators and admins. */
export function incidentRoutes(incidents: Incidents | undefined, postmortems?: Postmortems): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.use("*", async (c, next) => {
    const { role } = c.get("user");
    if (role !== "operator" && role !== "admin")
      throw new RequestError(403, "forbidden", "Only operators and admins may read incidents.");
    await next();
  });
  routes.get("/", async (c) => c.json({ incidents: incidents ? await incidents.list(100) : [] }));
  routes.get("/:incidentId", async (c) => {
    const found = await incidents?.get(c.req.param("incidentId"));
    if (!found) return errorResponse(c, 404, "incident_not_found", `No incident ${c.req.param("incidentId")}.`);
    return c.json(found);
  });
  addTimelineRoutes(routes, postmortems);
  return routes;
}
