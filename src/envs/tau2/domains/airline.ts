/** The airline domain (upstream `tau2/domains/airline/tools.py`), same tools, messages and mutations. */
import type { Tau2DomainSpec, Tau2State } from "../environment.js";
import { calculate } from "../py-calc.js";
import {
  keyError,
  PyError,
  pyIn,
  pyStr,
  pyTypeName,
  requireNumber,
  typeError,
  valueError,
} from "../py-errors.js";
import { pyConstruct, pyDump, type PyModel } from "../py-model.js";
import { modelSchema, type ParamSpec, S, transferTool, type Toolkit, type ToolDef } from "../toolkit.js";
import {
  AirportCode,
  Certificate,
  DirectFlight,
  FlightDBType,
  FlightInfo,
  type AFlight,
  type AFlightDate,
  type APayment,
  type AReservation,
  type AReservationFlight,
  type AUser,
  Passenger,
  Payment,
  Reservation,
  ReservationFlight,
  User,
} from "./airline-model.js";

const flights = (s: Tau2State) => s.db.flights as Map<string, AFlight>;
const users = (s: Tau2State) => s.db.users as Map<string, AUser>;
const reservations = (s: Tau2State) => s.db.reservations as Map<string, AReservation>;

function getUser(s: Tau2State, userId: unknown): AUser {
  if (!pyIn(users(s), userId)) throw valueError(`User ${pyStr(userId)} not found`);
  return users(s).get(userId as string)!;
}
function getReservation(s: Tau2State, id: unknown): AReservation {
  if (!pyIn(reservations(s), id)) throw valueError(`Reservation ${pyStr(id)} not found`);
  return reservations(s).get(id as string)!;
}
function getFlight(s: Tau2State, flightNumber: unknown): AFlight {
  if (!pyIn(flights(s), flightNumber)) throw valueError(`Flight ${pyStr(flightNumber)} not found`);
  return flights(s).get(flightNumber as string)!;
}
function getFlightInstance(s: Tau2State, flightNumber: unknown, date: unknown): AFlightDate {
  const flight = getFlight(s, flightNumber);
  if (!pyIn(flight.dates, date))
    throw valueError(`Flight ${pyStr(flightNumber)} not found on date ${pyStr(date)}`);
  return flight.dates.get(date as string)!;
}
/** `d[key]` on a dict keyed by cabin class: KeyError for an unknown key. */
function item(map: Map<string, number>, key: unknown): number {
  if (!pyIn(map, key)) throw keyError(key);
  return map.get(key as string)!;
}

/** Python iteration of an argument (list items, str characters, dict keys). */
function pyIter(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  if (typeof v === "string") return [...v];
  if (v !== null && typeof v === "object") return Object.keys(v);
  throw typeError(`'${pyTypeName(v)}' object is not iterable`);
}
const isDict = (v: unknown) => v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * Upstream's `if all(isinstance(x, dict) for x in xs): xs = [Model(**x) for x in xs]`. When some
 * item is not a dict the raw items are kept; reading a field of one then raises AttributeError.
 */
function modelsIfAllDicts(v: unknown, model: PyModel): { items: unknown[]; models: boolean } {
  const items = pyIter(v);
  if (!items.every(isDict)) return { items, models: false };
  return { items: items.map((x) => pyConstruct(model, x)), models: true };
}
function field<V>(list: { models: boolean }, obj: unknown, name: string): V {
  if (!list.models)
    throw new PyError("AttributeError", `'${pyTypeName(obj)}' object has no attribute '${name}'`);
  return (obj as Record<string, unknown>)[name] as V;
}

function searchDirect(
  s: Tau2State,
  date: unknown,
  origin: unknown,
  destination: unknown,
  leaveAfter: string | null,
) {
  const results: Record<string, unknown>[] = [];
  for (const flight of flights(s).values()) {
    // Same short-circuit order as upstream's boolean chain.
    if (origin !== null && flight.origin !== origin) continue;
    if (destination !== null && flight.destination !== destination) continue;
    if (!pyIn(flight.dates, date)) continue;
    const d = flight.dates.get(date as string)!;
    if (d.status !== "available") continue;
    if (leaveAfter !== null && !(flight.scheduled_departure_time_est >= leaveAfter)) continue;
    results.push(
      pyConstruct(DirectFlight, {
        flight_number: flight.flight_number,
        origin: flight.origin,
        destination: flight.destination,
        status: "available",
        scheduled_departure_time_est: flight.scheduled_departure_time_est,
        scheduled_arrival_time_est: flight.scheduled_arrival_time_est,
        available_seats: d.available_seats,
        prices: d.prices,
      }),
    );
  }
  return results;
}

/** Python's `int(str)` for the day of the month in the one-stop search. */
function pyInt(text: string): number {
  if (!/^\s*[+-]?\d+\s*$/.test(text)) throw valueError(`invalid literal for int() with base 10: '${text}'`);
  return Number.parseInt(text, 10);
}

function paymentForUpdate(user: AUser, paymentId: unknown, totalPrice: number): APayment | null {
  if (!pyIn(user.payment_methods, paymentId)) throw valueError("Payment method not found");
  const pm = user.payment_methods.get(paymentId as string)!;
  if (pm.source === "certificate") throw valueError("Certificate cannot be used to update reservation");
  if (pm.source === "gift_card" && (pm.amount as number) < totalPrice)
    throw valueError("Gift card balance is not enough");
  // Built before the deduction so a failing construction changes nothing.
  const payment =
    totalPrice !== 0 ? pyConstruct<APayment>(Payment, { payment_id: paymentId, amount: totalPrice }) : null;
  if (pm.source === "gift_card") pm.amount = (pm.amount as number) - totalPrice;
  return payment;
}

const str = (name: string, description: string): ParamSpec => ({ name, description, schema: S.str });
const RES_ID = "The reservation ID, such as 'ZFA04Y'.";
const PAYMENT_ID =
  "The payment id stored in user profile, such as 'credit_card_7815826', 'gift_card_7815826', 'certificate_7815826'.";
const CABIN_ENUM = S.enumOf("business", "economy", "basic_economy");
const flightInfoDef = modelSchema("FlightInfo", [
  { name: "flight_number", description: "Flight number, such as 'HAT001'.", schema: S.str },
  {
    name: "date",
    description: "The date for the flight in the format 'YYYY-MM-DD', such as '2024-05-01'.",
    schema: S.str,
  },
]);
const passengerDef = modelSchema("Passenger", [
  { name: "first_name", description: "Passenger's first name", schema: S.str },
  { name: "last_name", description: "Passenger's last name", schema: S.str },
  { name: "dob", description: "Date of birth in YYYY-MM-DD format", schema: S.str },
]);
const paymentDef = modelSchema("Payment", [
  { name: "payment_id", description: "Unique identifier for the payment", schema: S.str },
  { name: "amount", description: "Payment amount in dollars", schema: S.int },
]);
const AIRPORTS: [string, string][] = [
  ["SFO", "San Francisco"],
  ["JFK", "New York"],
  ["LAX", "Los Angeles"],
  ["ORD", "Chicago"],
  ["DFW", "Dallas"],
  ["DEN", "Denver"],
  ["SEA", "Seattle"],
  ["ATL", "Atlanta"],
  ["MIA", "Miami"],
  ["BOS", "Boston"],
  ["PHX", "Phoenix"],
  ["IAH", "Houston"],
  ["LAS", "Las Vegas"],
  ["MCO", "Orlando"],
  ["EWR", "Newark"],
  ["CLT", "Charlotte"],
  ["MSP", "Minneapolis"],
  ["DTW", "Detroit"],
  ["PHL", "Philadelphia"],
  ["LGA", "LaGuardia"],
];

const dumpReservation = (r: AReservation) => pyDump(r, Reservation);

const tools: ToolDef<Tau2State>[] = [
  {
    name: "book_reservation",
    description: "Book a reservation.",
    params: [
      str("user_id", "The ID of the user to book the reservation such as 'sara_doe_496'`."),
      str("origin", "The IATA code for the origin city such as 'SFO'."),
      str("destination", "The IATA code for the destination city such as 'JFK'."),
      {
        name: "flight_type",
        description: "The type of flight such as 'one_way' or 'round_trip'.",
        schema: S.enumOf("round_trip", "one_way"),
      },
      {
        name: "cabin",
        description: "The cabin class such as 'basic_economy', 'economy', or 'business'.",
        schema: CABIN_ENUM,
      },
      {
        name: "flights",
        description: "An array of objects containing details about each piece of flight.",
        schema: S.refOrDictList("FlightInfo"),
      },
      {
        name: "passengers",
        description: "An array of objects containing details about each passenger.",
        schema: S.refOrDictList("Passenger"),
      },
      {
        name: "payment_methods",
        description: "An array of objects containing details about each payment method.",
        schema: S.refOrDictList("Payment"),
      },
      {
        name: "total_baggages",
        description: "The total number of baggage items to book the reservation.",
        schema: S.int,
      },
      {
        name: "nonfree_baggages",
        description: "The number of non-free baggage items to book the reservation.",
        schema: S.int,
      },
      {
        name: "insurance",
        description: "Whether the reservation has insurance.",
        schema: S.enumOf("yes", "no"),
      },
    ],
    defs: { FlightInfo: flightInfoDef, Passenger: passengerDef, Payment: paymentDef },
    mutates: true,
    run: (s, a) => {
      const flightList = modelsIfAllDicts(a.flights, FlightInfo);
      const passengers = modelsIfAllDicts(a.passengers, Passenger).items;
      const payments = modelsIfAllDicts(a.payment_methods, Payment);
      const user = getUser(s, a.user_id);
      const reservationId = ["HATHAT", "HATHAU", "HATHAV"].find((id) => !reservations(s).has(id));
      if (!reservationId) throw valueError("Too many reservations");
      const reservation = pyConstruct<AReservation>(Reservation, {
        reservation_id: reservationId,
        user_id: a.user_id,
        origin: a.origin,
        destination: a.destination,
        flight_type: a.flight_type,
        cabin: a.cabin,
        flights: [],
        passengers,
        payment_history: payments.items,
        created_at: "2024-05-15T15:00:00",
        total_baggages: a.total_baggages,
        nonfree_baggages: a.nonfree_baggages,
        insurance: a.insurance,
      });
      const cabin = a.cabin as string;
      let totalPrice = 0;
      const dateData: AFlightDate[] = [];
      for (const info of flightList.items) {
        const flightNumber = field<string>(flightList, info, "flight_number");
        const date = field<string>(flightList, info, "date");
        const flight = getFlight(s, flightNumber);
        const d = getFlightInstance(s, flightNumber, date);
        if (d.status !== "available")
          throw valueError(`Flight ${flightNumber} not available on date ${date}`);
        if (item(d.available_seats!, cabin) < passengers.length)
          throw valueError(`Not enough seats on flight ${flightNumber}`);
        const price = item(d.prices!, cabin);
        reservation.flights.push(
          pyConstruct<AReservationFlight>(ReservationFlight, {
            origin: flight.origin,
            destination: flight.destination,
            flight_number: flightNumber,
            date,
            price,
          }),
        );
        dateData.push(d);
        totalPrice += price * passengers.length;
      }
      if (a.insurance === "yes") totalPrice += 30 * passengers.length;
      if (typeof a.nonfree_baggages !== "number" && typeof a.nonfree_baggages !== "boolean") {
        // 50 * "2" is a str in Python; adding it to the int total is what fails.
        throw typeError(`unsupported operand type(s) for +=: 'int' and '${pyTypeName(a.nonfree_baggages)}'`);
      }
      totalPrice += 50 * Number(a.nonfree_baggages);
      for (const pm of payments.items) {
        const paymentId = field<string>(payments, pm, "payment_id");
        const amount = field<number>(payments, pm, "amount");
        if (!user.payment_methods.has(paymentId)) throw valueError(`Payment method ${paymentId} not found`);
        const userPm = user.payment_methods.get(paymentId)!;
        if (
          (userPm.source === "gift_card" || userPm.source === "certificate") &&
          (userPm.amount as number) < amount
        ) {
          throw valueError(`Not enough balance in payment method ${paymentId}`);
        }
      }
      const totalPayment = payments.items.reduce(
        (sum: number, pm) => sum + field<number>(payments, pm, "amount"),
        0,
      );
      if (totalPayment !== totalPrice) {
        throw valueError(
          `Payment amount does not add up, total price is ${pyStr(totalPrice)}, but paid ${pyStr(totalPayment)}`,
        );
      }
      // A certificate listed twice fails upstream on the second pop (KeyError), after earlier
      // deductions; checked here first so the refusal changes nothing.
      const popped = new Set<string>();
      for (const pm of payments.items as APayment[]) {
        if (popped.has(pm.payment_id)) throw keyError(pm.payment_id);
        if (user.payment_methods.get(pm.payment_id)!.source === "certificate") popped.add(pm.payment_id);
      }
      for (const pm of payments.items as APayment[]) {
        const userPm = user.payment_methods.get(pm.payment_id)!;
        if (userPm.source === "gift_card") userPm.amount = (userPm.amount as number) - pm.amount;
        else if (userPm.source === "certificate") user.payment_methods.delete(pm.payment_id);
      }
      for (const d of dateData)
        d.available_seats!.set(cabin, d.available_seats!.get(cabin)! - passengers.length);
      reservations(s).set(reservationId, reservation);
      users(s)
        .get(a.user_id as string)!
        .reservations.push(reservationId);
      return dumpReservation(reservation);
    },
  },
  {
    name: "calculate",
    description: "Calculate the result of a mathematical expression.",
    params: [
      str(
        "expression",
        "The mathematical expression to calculate, such as '2 + 2'. The expression can contain numbers, operators (+, -, *, /), parentheses, and spaces.",
      ),
    ],
    mutates: false,
    run: (_s, a) => calculate(a.expression),
  },
  {
    name: "cancel_reservation",
    description: "Cancel the whole reservation.",
    params: [str("reservation_id", RES_ID)],
    mutates: true,
    run: (s, a) => {
      const reservation = getReservation(s, a.reservation_id);
      const refunds = reservation.payment_history.map((p) =>
        pyConstruct<APayment>(Payment, { payment_id: p.payment_id, amount: -p.amount }),
      );
      reservation.payment_history.push(...refunds);
      reservation.status = "cancelled";
      // Upstream does not release the seats on cancellation either.
      return dumpReservation(reservation);
    },
  },
  {
    name: "get_reservation_details",
    description: "Get the details of a reservation.",
    params: [str("reservation_id", "The reservation ID, such as '8JX2WO'.")],
    mutates: false,
    run: (s, a) => dumpReservation(getReservation(s, a.reservation_id)),
  },
  {
    name: "get_user_details",
    description: "Get the details of a user, including their reservations.",
    params: [str("user_id", "The user ID, such as 'sara_doe_496'.")],
    mutates: false,
    run: (s, a) => pyDump(getUser(s, a.user_id), User),
  },
  {
    name: "list_all_airports",
    description: "Returns a list of all available airports.",
    params: [],
    mutates: false,
    run: () => AIRPORTS.map(([iata, city]) => pyDump({ iata, city }, AirportCode)),
  },
  {
    name: "search_direct_flight",
    description: "Search for direct flights between two cities on a specific date.",
    params: [
      str("origin", "The origin city airport in three letters, such as 'JFK'."),
      str("destination", "The destination city airport in three letters, such as 'LAX'."),
      str("date", "The date of the flight in the format 'YYYY-MM-DD', such as '2024-01-01'."),
    ],
    mutates: false,
    run: (s, a) => searchDirect(s, a.date, a.origin, a.destination, null).map((f) => pyDump(f, DirectFlight)),
  },
  {
    name: "search_onestop_flight",
    description: "Search for one-stop flights between two cities on a specific date.",
    params: [
      str("origin", "The origin city airport in three letters, such as 'JFK'."),
      str("destination", "The destination city airport in three letters, such as 'LAX'."),
      str("date", "The date of the flight in the format 'YYYY-MM-DD', such as '2024-05-01'."),
    ],
    mutates: false,
    run: (s, a) => {
      const results: unknown[] = [];
      for (const first of searchDirect(s, a.date, a.origin, null, null)) {
        first.date = a.date;
        const arrival = first.scheduled_arrival_time_est as string;
        // Upstream quirk kept: the next day is written without zero padding ("2024-05-6").
        const date2 = arrival.includes("+1") ? `2024-05-${pyInt((a.date as string).slice(-2)) + 1}` : a.date;
        for (const second of searchDirect(s, date2, first.destination, a.destination, arrival)) {
          second.date = date2;
          results.push([first, second]);
        }
      }
      return results.map((pair) => (pair as unknown[]).map((f) => pyDump(f, DirectFlight)));
    },
  },
  {
    name: "send_certificate",
    description: "Send a certificate to a user. Be careful!",
    params: [
      str("user_id", "The ID of the user to book the reservation, such as 'sara_doe_496'."),
      { name: "amount", description: "The amount of the certificate to send.", schema: S.int },
    ],
    mutates: true,
    run: (s, a) => {
      const user = getUser(s, a.user_id);
      for (const n of [3221322, 3221323, 3221324]) {
        const paymentId = `certificate_${n}`;
        if (!user.payment_methods.has(paymentId)) {
          user.payment_methods.set(
            paymentId,
            pyConstruct(Certificate, { id: paymentId, amount: a.amount, source: "certificate" }),
          );
          return `Certificate ${paymentId} added to user ${pyStr(a.user_id)} with amount ${pyStr(a.amount)}.`;
        }
      }
      throw valueError("Too many certificates");
    },
  },
  transferTool<Tau2State>(),
  {
    name: "update_reservation_baggages",
    description: "Update the baggage information of a reservation.",
    params: [
      str("reservation_id", "The reservation ID, such as 'ZFA04Y'"),
      {
        name: "total_baggages",
        description: "The updated total number of baggage items included in the reservation.",
        schema: S.int,
      },
      {
        name: "nonfree_baggages",
        description: "The updated number of non-free baggage items included in the reservation.",
        schema: S.int,
      },
      str("payment_id", PAYMENT_ID),
    ],
    mutates: true,
    run: (s, a) => {
      const reservation = getReservation(s, a.reservation_id);
      const user = getUser(s, reservation.user_id);
      const extra = requireNumber(a.nonfree_baggages, "-", "int") - (reservation.nonfree_baggages as number);
      const payment = paymentForUpdate(user, a.payment_id, 50 * Math.max(0, extra));
      if (payment) reservation.payment_history.push(payment);
      reservation.total_baggages = a.total_baggages;
      reservation.nonfree_baggages = a.nonfree_baggages;
      return dumpReservation(reservation);
    },
  },
  {
    name: "update_reservation_flights",
    description: "Update the flight information of a reservation.",
    params: [
      str("reservation_id", RES_ID),
      { name: "cabin", description: "The cabin class of the reservation", schema: CABIN_ENUM },
      {
        name: "flights",
        description:
          "An array of objects containing details about each piece of flight in the ENTIRE new reservation. Even if the a flight segment is not changed, it should still be included in the array.",
        schema: S.refOrDictList("FlightInfo"),
      },
      str("payment_id", PAYMENT_ID),
    ],
    defs: { FlightInfo: flightInfoDef },
    mutates: true,
    run: (s, a) => {
      const flightList = modelsIfAllDicts(a.flights, FlightInfo);
      const reservation = getReservation(s, a.reservation_id);
      const user = getUser(s, reservation.user_id);
      const nPassengers = reservation.passengers.length;
      let totalPrice = 0;
      const newFlights: AReservationFlight[] = [];
      for (const info of flightList.items) {
        const flightNumber = field<string>(flightList, info, "flight_number");
        const date = field<string>(flightList, info, "date");
        const kept = reservation.flights.find(
          (f) => f.flight_number === flightNumber && f.date === date && a.cabin === reservation.cabin,
        );
        if (kept) {
          totalPrice += kept.price * nPassengers;
          newFlights.push(kept);
          continue;
        }
        const flight = getFlight(s, flightNumber);
        const d = getFlightInstance(s, flightNumber, date);
        if (d.status !== "available")
          throw valueError(`Flight ${flightNumber} not available on date ${date}`);
        if (item(d.available_seats!, a.cabin) < nPassengers)
          throw valueError(`Not enough seats on flight ${flightNumber}`);
        const rf = pyConstruct<AReservationFlight>(ReservationFlight, {
          flight_number: flightNumber,
          date,
          price: item(d.prices!, a.cabin),
          origin: flight.origin,
          destination: flight.destination,
        });
        totalPrice += rf.price * nPassengers;
        newFlights.push(rf);
      }
      totalPrice -= reservation.flights.reduce((sum, f) => sum + f.price, 0) * nPassengers;
      const payment = paymentForUpdate(user, a.payment_id, totalPrice);
      if (payment) reservation.payment_history.push(payment);
      reservation.flights = newFlights;
      reservation.cabin = a.cabin;
      return dumpReservation(reservation);
    },
  },
  {
    name: "update_reservation_passengers",
    description: "Update the passenger information of a reservation.",
    params: [
      str("reservation_id", RES_ID),
      {
        name: "passengers",
        description: "An array of objects containing details about each passenger.",
        schema: S.refOrDictList("Passenger"),
      },
    ],
    defs: { Passenger: passengerDef },
    mutates: true,
    run: (s, a) => {
      const passengers = modelsIfAllDicts(a.passengers, Passenger).items;
      const reservation = getReservation(s, a.reservation_id);
      if (passengers.length !== reservation.passengers.length)
        throw valueError("Number of passengers does not match");
      reservation.passengers = structuredClone(passengers);
      return dumpReservation(reservation);
    },
  },
  {
    name: "get_flight_status",
    description: "Get the status of a flight.",
    params: [str("flight_number", "The flight number."), str("date", "The date of the flight.")],
    mutates: false,
    run: (s, a) => getFlightInstance(s, a.flight_number, a.date).status,
  },
];

export const airlineDomain: Tau2DomainSpec = {
  name: "airline",
  dbType: FlightDBType,
  toolkit: { className: "AirlineTools", tools, functions: [] } satisfies Toolkit<Tau2State>,
};
