import { describe, expect, it } from "vitest";
import { resultToString } from "../../../src/envs/tau2/index.js";
import { domain, hasData } from "./helpers.js";
import { callOk, expectRefusal } from "./refusal.js";

// Real records: reservation 4WQ150 of chen_jackson_3290 (business, 3 passengers, DFW<->LAX,
// HAT170 on 2024-05-22 at 883 and HAT022 on 2024-05-26 at 779); the user has gift_card_3576581 (245).
const env = () => domain("airline").createEnv();
const RES = "4WQ150";
const USER = "chen_jackson_3290";

describe.skipIf(!hasData)("airline tools", () => {
  it("update_reservation_baggages charges 50 per extra bag, refusing bad payment methods", () => {
    const e = env();
    const base = { reservation_id: RES, total_baggages: 3, nonfree_baggages: 2 };
    expectRefusal(
      e,
      "update_reservation_baggages",
      { ...base, reservation_id: "NOPE00", payment_id: "gift_card_3576581" },
      "Reservation NOPE00 not found",
    );
    expectRefusal(
      e,
      "update_reservation_baggages",
      { ...base, payment_id: "credit_card_1" },
      "Payment method not found",
    );
    expectRefusal(
      e,
      "update_reservation_baggages",
      { ...base, nonfree_baggages: 10, payment_id: "gift_card_3576581" },
      "Gift card balance is not enough",
    );
    expectRefusal(
      e,
      "update_reservation_baggages",
      { ...base, nonfree_baggages: "2", payment_id: "gift_card_3576581" },
      "unsupported operand type(s) for -: 'str' and 'int'",
    );
    const r = callOk(e, "update_reservation_baggages", {
      ...base,
      payment_id: "gift_card_3576581",
    }) as Record<string, unknown>;
    expect(r).toMatchObject({ total_baggages: 3, nonfree_baggages: 2 });
    expect((r.payment_history as unknown[]).at(-1)).toEqual({ payment_id: "gift_card_3576581", amount: 100 });
    const user = e.callSync({ name: "get_user_details", arguments: { user_id: USER } });
    expect(user.ok && user.content).toContain('"amount": 145.0');
  });

  it("send_certificate adds certificate_3221322 with a float amount", () => {
    const e = env();
    expectRefusal(e, "send_certificate", { user_id: "nobody", amount: 100 }, "User nobody not found");
    expect(
      resultToString(e.callSync({ name: "send_certificate", arguments: { user_id: USER, amount: 100 } })),
    ).toBe(`Certificate certificate_3221322 added to user ${USER} with amount 100.`);
    expect(e.dumpDb()).toMatchObject({
      users: { [USER]: { payment_methods: { certificate_3221322: { source: "certificate", amount: 100 } } } },
    });
    const before = e.hash();
    e.callSync({ name: "send_certificate", arguments: { user_id: USER, amount: 50 } });
    expect(e.hash()).not.toBe(before);
  });

  it("cancel_reservation refunds every payment and marks it cancelled", () => {
    const e = env();
    expectRefusal(e, "cancel_reservation", { reservation_id: 42 }, "Reservation 42 not found");
    const r = callOk(e, "cancel_reservation", { reservation_id: RES }) as {
      status: string;
      payment_history: { amount: number }[];
    };
    expect(r.status).toBe("cancelled");
    const n = r.payment_history.length / 2;
    expect(r.payment_history.slice(n).map((p) => p.amount)).toEqual(
      r.payment_history.slice(0, n).map((p) => -p.amount),
    );
  });

  it("update_reservation_passengers and update_reservation_flights refusals", () => {
    const e = env();
    expectRefusal(
      e,
      "update_reservation_passengers",
      { reservation_id: RES, passengers: [{ first_name: "A", last_name: "B", dob: "2000-01-01" }] },
      "Number of passengers does not match",
    );
    const bad = e.callSync({
      name: "update_reservation_passengers",
      arguments: { reservation_id: RES, passengers: [{ first_name: "A" }] },
    });
    expect(resultToString(bad)).toMatch(
      /^Error: 2 validation errors for Passenger\nlast_name\n {2}Field required \[type=missing/,
    );
    const flights = [
      { flight_number: "HAT170", date: "2024-05-22" },
      { flight_number: "HAT022", date: "2024-05-26" },
    ];
    expectRefusal(
      e,
      "update_reservation_flights",
      { reservation_id: RES, cabin: "business", flights, payment_id: "nope" },
      "Payment method not found",
    );
    expectRefusal(
      e,
      "update_reservation_flights",
      {
        reservation_id: RES,
        cabin: "business",
        flights: [{ flight_number: "HAT999", date: "2024-05-22" }],
        payment_id: "gift_card_3576581",
      },
      "Flight HAT999 not found",
    );
    expectRefusal(
      e,
      "update_reservation_flights",
      {
        reservation_id: RES,
        cabin: "business",
        flights: [{ flight_number: "HAT170", date: "2030-01-01" }],
        payment_id: "gift_card_3576581",
      },
      "Flight HAT170 not found on date 2030-01-01",
    );
    // unchanged flights and cabin cost nothing
    const same = callOk(e, "update_reservation_flights", {
      reservation_id: RES,
      cabin: "business",
      flights,
      payment_id: "gift_card_3576581",
    }) as { payment_history: unknown[] };
    expect(same.payment_history.length).toBe(1);
  });

  it("book_reservation: payment checks and the booking", () => {
    const e = env();
    const search = callOk(e, "search_direct_flight", {
      origin: "JFK",
      destination: "MIA",
      date: "2024-05-20",
    }) as {
      flight_number: string;
      prices: Record<string, number>;
    }[];
    expect(search.length).toBeGreaterThan(0);
    const f = search[0]!;
    const price = f.prices.economy!;
    const args = {
      user_id: USER,
      origin: "JFK",
      destination: "MIA",
      flight_type: "one_way",
      cabin: "economy",
      flights: [{ flight_number: f.flight_number, date: "2024-05-20" }],
      passengers: [{ first_name: "Chen", last_name: "Jackson", dob: "1956-07-07" }],
      payment_methods: [{ payment_id: "gift_card_3576581", amount: price }],
      total_baggages: 0,
      nonfree_baggages: 0,
      insurance: "no",
    };
    expectRefusal(
      e,
      "book_reservation",
      { ...args, payment_methods: [{ payment_id: "credit_card_0", amount: price }] },
      "Payment method credit_card_0 not found",
    );
    expectRefusal(
      e,
      "book_reservation",
      { ...args, payment_methods: [{ payment_id: "gift_card_3576581", amount: price - 1 }] },
      `Payment amount does not add up, total price is ${price}, but paid ${price - 1}`,
    );
    expectRefusal(e, "book_reservation", { ...args, user_id: "nobody" }, "User nobody not found");
    if (price > 245) {
      expectRefusal(e, "book_reservation", args, "Not enough balance in payment method gift_card_3576581");
    } else {
      const r = callOk(e, "book_reservation", args) as Record<string, unknown>;
      expect(r).toMatchObject({ reservation_id: "HATHAT", status: null, created_at: "2024-05-15T15:00:00" });
    }
  });

  it("one-stop search and flight status follow upstream", () => {
    const e = env();
    const pairs = callOk(e, "search_onestop_flight", {
      origin: "JFK",
      destination: "SEA",
      date: "2024-05-20",
    }) as { date: string }[][];
    for (const [a, b] of pairs) {
      expect(a!.date).toBe("2024-05-20");
      expect(typeof b!.date).toBe("string");
    }
    expect(
      resultToString(
        e.callSync({ name: "get_flight_status", arguments: { flight_number: "HAT170", date: "2024-05-22" } }),
      ),
    ).toMatch(/^[a-z ]+$/);
    expect(
      resultToString(
        e.callSync({
          name: "search_direct_flight",
          arguments: { origin: "JFK", destination: "MIA", date: ["x"] },
        }),
      ),
    ).toBe("Error: unhashable type: 'list'");
  });
});
