import { describe, expect, it } from "vitest";
import { visibleBody } from "./outbox.service.js";

describe("who reads an email's one-time link", () => {
  const reset = { kind: "account.password_reset", bodyText: "open https://x/reset-password?token=abc" };
  const receipt = { kind: "payment.receipt", bodyText: "Paid $150.00" };
  it("staff never; the recipient in the portal only when there is no mail server", () => {
    expect(visibleBody(reset, "staff", false)).not.toContain("token=");
    expect(visibleBody(reset, "recipient", true)).not.toContain("token=");
    expect(visibleBody(reset, "recipient", false)).toContain("token=abc");
    expect(visibleBody(receipt, "staff", true)).toBe("Paid $150.00");
  });
});
