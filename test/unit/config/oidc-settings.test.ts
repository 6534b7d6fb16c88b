import { describe, expect, it } from "vitest";
import { oidcSettingsOf } from "../../../src/config/oidc-settings.js";
import { parseConfig } from "../../../src/config/file.js";

const issuer = "https://sso.example.com/realms/ops";

describe("single sign-on settings", () => {
  it("are off without an issuer, and keep the roles in the file's order", () => {
    expect(oidcSettingsOf({}, {})).toBeUndefined();
    const config = parseConfig({ auth: { oidc: { roles: { "sre-leads": "admin", "sre-oncall": "operator" } } } }, {});
    expect(oidcSettingsOf({ OPSPILOT_OIDC_ISSUER: issuer, OPSPILOT_OIDC_AUDIENCE: "opspilot" }, config)).toEqual({
      issuer,
      audience: "opspilot",
      roles: [
        ["sre-leads", "admin"],
        ["sre-oncall", "operator"],
      ],
      groupsClaim: "groups",
    });
  });

  it("refuse an issuer without an audience or without a role mapping, and a mapping to an unknown role", () => {
    expect(() => oidcSettingsOf({ OPSPILOT_OIDC_ISSUER: issuer }, {})).toThrow("without OPSPILOT_OIDC_AUDIENCE");
    expect(() => oidcSettingsOf({ OPSPILOT_OIDC_ISSUER: issuer, OPSPILOT_OIDC_AUDIENCE: "a" }, {})).toThrow(
      "no auth.oidc.roles",
    );
    expect(() => parseConfig({ auth: { oidc: { roles: { ops: "root" } } } }, {})).toThrow(
      "auth.oidc.roles.ops: must be one of viewer, operator, admin",
    );
    expect(() => parseConfig({ auth: { oidc: { roles: {} } } }, {})).toThrow("must map at least one group");
  });
});
