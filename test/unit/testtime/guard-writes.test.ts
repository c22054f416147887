import { describe, expect, it } from "vitest";
import { tau2WriteTools } from "../../../src/bench/tau2/rehearsal-bench.js";
import { DOMAIN_TOOLS, vitaWriteTools } from "../../../src/envs/vita/environment.js";
import { guardsWrites, rehearsalFromFlags } from "../../../src/testtime/index.js";
import { domain, hasData } from "../tau2-env/helpers.js";

describe("--guard-tools writes: each bench's own state-changing tools", () => {
  it("is resolved by the bench, not read as a tool named 'writes'", () => {
    const flags = { rehearsal: "parallel:2", guardTools: "writes" };
    expect(guardsWrites(flags)).toBe(true);
    expect(rehearsalFromFlags(flags)).not.toHaveProperty("guardTools");
    expect(guardsWrites({ rehearsal: "parallel:2", guardTools: "refund" })).toBe(false);
    expect(() => rehearsalFromFlags({ guardTools: "writes" })).toThrow(/need --rehearsal/);
  });

  it.skipIf(!hasData)("τ² airline: upstream's WRITE tools, no reads", () => {
    expect(tau2WriteTools(domain("airline")).sort()).toEqual([
      "book_reservation",
      "cancel_reservation",
      "send_certificate",
      "update_reservation_baggages",
      "update_reservation_flights",
      "update_reservation_passengers",
    ]);
  });

  it("VitaBench: the write-typed tools of the domain", () => {
    const writes = vitaWriteTools("delivery");
    const all = DOMAIN_TOOLS.delivery;
    expect(writes.length).toBeGreaterThan(0);
    expect(writes.length).toBeLessThan(all.length);
    for (const t of all) expect(writes.includes(t.name)).toBe(t.type === "write");
  });
});
