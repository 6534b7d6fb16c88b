/** The host (and port) each provider model built here talks to, keyed by the model object. */
const hosts = new WeakMap<object, string>();

/** Remembers that `model` sends its requests to `baseURL`; only the host is kept, never a path, query or key. */
export function rememberEndpoint<T extends object>(model: T, baseURL: string): T {
  if (URL.canParse(baseURL)) hosts.set(model, new URL(baseURL).host);
  return model;
}

/** The host (`api.openai.com`, `127.0.0.1:11434`) a model talks to; undefined for the demo model or a model built elsewhere. */
export function endpointHostOf(model: object): string | undefined {
  return hosts.get(model);
}
