import { describe, expect, it } from "vitest";
import { tracingFromEnv } from "../../../src/app/tracing.js";

const options = { model: { provider: "opspilot", name: "demo" }, logger: { error: () => undefined } };
const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" };

describe("tracing from the OpenTelemetry variables", () => {
  it("is off without an endpoint, and when the SDK or the traces exporter is turned off", () => {
    expect(tracingFromEnv({}, options)).toBeUndefined();
    expect(tracingFromEnv({ ...endpoint, OTEL_SDK_DISABLED: "true" }, options)).toBeUndefined();
    expect(tracingFromEnv({ ...endpoint, OTEL_TRACES_EXPORTER: "none" }, options)).toBeUndefined();
  });

  it("starts with either endpoint variable, each protocol over HTTP and every sampler the specification names", async () => {
    for (const env of [
      endpoint,
      { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://collector.example.com/v1/traces" },
      {
        ...endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_EXPORTER_OTLP_HEADERS: "x-api-key=a%3Db,tenant=ops",
      },
      ...["always_on", "always_off", "traceidratio", "parentbased_always_off", "parentbased_traceidratio"].map(
        (sampler) => ({ ...endpoint, OTEL_TRACES_SAMPLER: sampler, OTEL_TRACES_SAMPLER_ARG: "0.5" }),
      ),
    ]) {
      const tracing = tracingFromEnv(env, options);
      expect(tracing, JSON.stringify(env)).toBeDefined();
      await tracing!.shutdown();
    }
  });

  it("stops start-up with the variable named for a value it cannot use", () => {
    expect(() => tracingFromEnv({ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }, options)).toThrow(
      "OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json (gRPC is not supported)",
    );
    expect(() => tracingFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" }, options)).toThrow(
      "OTEL_EXPORTER_OTLP_ENDPOINT must be an http(s) URL",
    );
    expect(() => tracingFromEnv({ ...endpoint, OTEL_TRACES_SAMPLER: "sometimes" }, options)).toThrow(
      "OTEL_TRACES_SAMPLER must be always_on",
    );
    expect(() =>
      tracingFromEnv({ ...endpoint, OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "2" }, options),
    ).toThrow("OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1");
    expect(() => tracingFromEnv({ ...endpoint, OTEL_EXPORTER_OTLP_HEADERS: "novalue" }, options)).toThrow(
      "OTEL_EXPORTER_OTLP_HEADERS must be key=value pairs",
    );
  });
});
