/** Airline data model (upstream `tau2/domains/airline/data_model.py`). */
import { T } from "../py-model.js";

const Cabin = T.lit("business", "economy", "basic_economy");
export const CabinValues = ["business", "economy", "basic_economy"] as const;

const Name = T.model("Name", [
  { name: "first_name", t: T.str },
  { name: "last_name", t: T.str },
]);
const Address = T.model("Address", [
  { name: "address1", t: T.str },
  { name: "address2", t: T.opt(T.str), optional: true },
  { name: "city", t: T.str },
  { name: "country", t: T.str },
  { name: "state", t: T.str },
  { name: "zip", t: T.str },
]);
export const Payment = T.model("Payment", [
  { name: "payment_id", t: T.str },
  { name: "amount", t: T.int },
]);
const CreditCard = T.model("CreditCard", [
  { name: "source", t: T.lit("credit_card") },
  { name: "id", t: T.str },
  { name: "brand", t: T.str },
  { name: "last_four", t: T.str },
]);
const GiftCard = T.model("GiftCard", [
  { name: "source", t: T.lit("gift_card") },
  { name: "id", t: T.str },
  { name: "amount", t: T.float },
]);
export const Certificate = T.model("Certificate", [
  { name: "source", t: T.lit("certificate") },
  { name: "id", t: T.str },
  { name: "amount", t: T.float },
]);
export const Passenger = T.model("Passenger", [
  { name: "first_name", t: T.str },
  { name: "last_name", t: T.str },
  { name: "dob", t: T.str },
]);
const seatMap = T.dict(T.int);
const time = T.str;
const FlightDateStatus = T.union(
  "status",
  T.model("FlightDateStatusAvailable", [
    { name: "status", t: T.lit("available") },
    { name: "available_seats", t: seatMap },
    { name: "prices", t: seatMap },
  ]),
  T.model("FlightDateStatusLanded", [
    { name: "status", t: T.lit("landed") },
    { name: "actual_departure_time_est", t: time },
    { name: "actual_arrival_time_est", t: time },
  ]),
  T.model("FlightDateStatusCancelled", [{ name: "status", t: T.lit("cancelled") }]),
  T.model("FlightDateStatusDelayed", [
    { name: "status", t: T.lit("delayed") },
    { name: "estimated_departure_time_est", t: time },
    { name: "estimated_arrival_time_est", t: time },
  ]),
  T.model("FlightDataStatusFlying", [
    { name: "status", t: T.lit("flying") },
    { name: "actual_departure_time_est", t: time },
    { name: "estimated_arrival_time_est", t: time },
  ]),
  T.model("FlightDataStatusOnTime", [
    { name: "status", t: T.lit("on time") },
    { name: "estimated_departure_time_est", t: time },
    { name: "estimated_arrival_time_est", t: time },
  ]),
);
const Flight = T.model("Flight", [
  { name: "flight_number", t: T.str },
  { name: "origin", t: T.str },
  { name: "destination", t: T.str },
  { name: "scheduled_departure_time_est", t: time },
  { name: "scheduled_arrival_time_est", t: time },
  { name: "dates", t: T.dict(FlightDateStatus) },
]);
export const DirectFlight = T.model("DirectFlight", [
  { name: "flight_number", t: T.str },
  { name: "origin", t: T.str },
  { name: "destination", t: T.str },
  { name: "status", t: T.lit("available") },
  { name: "scheduled_departure_time_est", t: time },
  { name: "scheduled_arrival_time_est", t: time },
  { name: "date", t: T.opt(T.str), optional: true },
  { name: "available_seats", t: seatMap },
  { name: "prices", t: seatMap },
]);
export const ReservationFlight = T.model("ReservationFlight", [
  { name: "flight_number", t: T.str },
  { name: "origin", t: T.str },
  { name: "destination", t: T.str },
  { name: "date", t: T.str },
  { name: "price", t: T.int },
]);
export const FlightInfo = T.model("FlightInfo", [
  { name: "flight_number", t: T.str },
  { name: "date", t: T.str },
]);
export const User = T.model("User", [
  { name: "user_id", t: T.str },
  { name: "name", t: Name },
  { name: "address", t: Address },
  { name: "email", t: T.str },
  { name: "dob", t: T.str },
  { name: "payment_methods", t: T.dict(T.union("source", CreditCard, GiftCard, Certificate)) },
  { name: "saved_passengers", t: T.list(Passenger) },
  { name: "membership", t: T.lit("gold", "silver", "regular") },
  { name: "reservations", t: T.list(T.str) },
]);
export const Reservation = T.model("Reservation", [
  { name: "reservation_id", t: T.str },
  { name: "user_id", t: T.str },
  { name: "origin", t: T.str },
  { name: "destination", t: T.str },
  { name: "flight_type", t: T.lit("round_trip", "one_way") },
  { name: "cabin", t: Cabin },
  { name: "flights", t: T.list(ReservationFlight) },
  { name: "passengers", t: T.list(Passenger) },
  { name: "payment_history", t: T.list(Payment) },
  { name: "created_at", t: T.str },
  { name: "total_baggages", t: T.int },
  { name: "nonfree_baggages", t: T.int },
  { name: "insurance", t: T.lit("yes", "no") },
  { name: "status", t: T.opt(T.lit("cancelled")), optional: true },
]);
export const AirportCode = T.model("AirportCode", [
  { name: "iata", t: T.str },
  { name: "city", t: T.str },
]);
export const FlightDBType = T.model("FlightDB", [
  { name: "flights", t: T.dict(Flight) },
  { name: "users", t: T.dict(User) },
  { name: "reservations", t: T.dict(Reservation) },
]);

export interface AFlightDate {
  status: string;
  available_seats?: Map<string, number>;
  prices?: Map<string, number>;
}
export interface AFlight {
  flight_number: string;
  origin: string;
  destination: string;
  scheduled_departure_time_est: string;
  scheduled_arrival_time_est: string;
  dates: Map<string, AFlightDate>;
}
export interface APaymentMethod {
  source: string;
  id: string;
  amount?: number;
}
export interface AUser {
  user_id: string;
  payment_methods: Map<string, APaymentMethod>;
  reservations: string[];
}
export interface APayment {
  payment_id: string;
  amount: number;
}
export interface AReservationFlight {
  flight_number: string;
  origin: string;
  destination: string;
  date: string;
  price: number;
}
export interface AReservation {
  reservation_id: string;
  user_id: string;
  cabin: unknown;
  flights: AReservationFlight[];
  passengers: unknown[];
  payment_history: APayment[];
  total_baggages: unknown;
  nonfree_baggages: unknown;
  status: unknown;
}
