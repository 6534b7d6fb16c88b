import { fileURLToPath } from "node:url";
import { serveStatic } from "@hono/node-server/serve-static";
import type { MiddlewareHandler } from "hono";
import { secureHeaders } from "hono/secure-headers";

/** The page's assets: `public/` at the project root. */
export const PUBLIC_DIR = fileURLToPath(new URL("../../public/", import.meta.url));

/** Security headers for every response; for the page: every asset from this origin, no inline script, no framing. */
export function securityHeaders(): MiddlewareHandler {
  return secureHeaders({
    contentSecurityPolicy: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'", "data:"],
      connectSrc: ["'self'"],
      objectSrc: ["'none'"],
      baseUri: ["'none'"],
      frameAncestors: ["'none'"],
    },
  });
}

/** Serves the page's static files (index.html for `/`), revalidated on every load. */
export function servePage(root: string = PUBLIC_DIR): MiddlewareHandler {
  return serveStatic({
    root,
    onFound: (_path, c) => {
      c.header("Cache-Control", "no-cache");
    },
  });
}
