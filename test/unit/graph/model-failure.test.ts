import { APIConnectionError, APIConnectionTimeoutError, APIError } from "openai";
import { describe, expect, it } from "vitest";
import { classifyModelFailure } from "../../../src/graph/model-failure.js";

/** The error the OpenAI client throws for an HTTP answer, with the request id the endpoint sent. */
function httpError(status: number, message: string, code?: string) {
  return APIError.generate(status, { message, code }, message, new Headers({ "x-request-id": "req_123" }));
}

describe("classifyModelFailure", () => {
  it("names why a model call failed, with the status, the error class and the request id", () => {
    const refused = new APIConnectionError({
      cause: Object.assign(new TypeError("fetch failed"), { code: "ECONNREFUSED" }),
    });
    expect(classifyModelFailure(refused)).toMatchObject({ reason: "unreachable" });
    expect(classifyModelFailure(new APIConnectionTimeoutError())).toMatchObject({ reason: "timeout" });
    expect(classifyModelFailure(httpError(401, "Incorrect API key provided"))).toEqual({
      reason: "auth",
      status: 401,
      errorClass: "AuthenticationError",
      requestId: "req_123",
    });
    expect(classifyModelFailure(httpError(429, "Rate limit reached"))).toMatchObject({
      reason: "rate_limited",
      status: 429,
    });
    expect(classifyModelFailure(httpError(503, "overloaded"))).toMatchObject({ reason: "server_error", status: 503 });
    expect(classifyModelFailure(httpError(404, "The model `x` does not exist"))).toMatchObject({
      reason: "bad_request",
    });
    expect(
      classifyModelFailure(
        httpError(400, "This model's maximum context length is 8192 tokens", "context_length_exceeded"),
      ),
    ).toMatchObject({ reason: "context_length", status: 400 });
  });
});
