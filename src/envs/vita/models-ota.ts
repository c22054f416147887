/**
 * VitaBench's OTA models (upstream `domains/ota/data_model.py`): hotels, attractions, flights and
 * trains with their products. Their `__str__`/`__repr__` texts are what the OTA tools return; note
 * that they interpolate a `Location` with `{...}`, which is pydantic's `__str__`
 * (`address='…' longitude=… latitude=…`), not the `Location.__repr__` the other domains print.
 * `toPy()` is `model_dump()`: `store_id` first (set to the entity's own id after validation).
 */
import type { Location } from "./models.js";
import { fl, pyRepr, pyStr, pyStrRepr, PyFloat } from "./py-value.js";

/** pydantic's `str(location)`: its fields' reprs separated by spaces. */
export const pydanticLocation = (l: Location): string =>
  `address=${pyStrRepr(l.address)} longitude=${fl(l.longitude)} latitude=${fl(l.latitude)}`;

export type OtaProductKind = "hotel" | "attraction" | "flight" | "train";

const TYPE_FIELD = { hotel: "room_type", attraction: "ticket_type", flight: "seat_type", train: "seat_type" };
const REPR_NAME = {
  hotel: ["HotelProduct", "room_id"],
  attraction: ["AttractionProduct", "attraction_id"],
  flight: ["FlightProduct", "seat_id"],
  train: ["TrainProduct", "seat_id"],
} as const;

/** `HotelProduct`, `AttractionProduct`, `FlightProduct` or `TrainProduct`. */
export class OtaProduct {
  constructor(
    readonly kind: OtaProductKind,
    public product_id: string,
    public price: number,
    public quantity: number | null,
    public date: string,
    /** room_type, ticket_type or seat_type. */
    public type: string,
  ) {}
  pyRepr(): string {
    const [cls, idName] = REPR_NAME[this.kind];
    return (
      `${cls}(${TYPE_FIELD[this.kind]}=${this.type}, date=${this.date}, price=${fl(this.price)}, ` +
      `quantity=${pyStr(this.quantity)}, ${idName}=${this.product_id})`
    );
  }
  toPy(): Record<string, unknown> {
    return {
      product_id: this.product_id,
      price: new PyFloat(this.price),
      quantity: this.quantity,
      date: this.date,
      [TYPE_FIELD[this.kind]]: this.type,
    };
  }
}

const productsRepr = (ps: OtaProduct[]) => ps.map((p) => p.pyRepr()).join("\n");

export class Hotel {
  constructor(
    public hotel_id: string,
    public hotel_name: string,
    public score: number,
    public star_rating: number,
    public location: Location,
    public tags: string[],
    public products: OtaProduct[],
  ) {}
  private head(): string {
    return (
      `Hotel(hotel_id=${this.hotel_id}, hotel_name=${this.hotel_name}, score=${fl(this.score)}, ` +
      `star_rating=${this.star_rating}, location=${pydanticLocation(this.location)}, tags=${pyRepr(this.tags)}`
    );
  }
  /** `str(hotel)`: no products. */
  strText(): string {
    return `${this.head()})`;
  }
  pyRepr(): string {
    return `${this.head()}, products=${productsRepr(this.products)})`;
  }
  toPy(): Record<string, unknown> {
    return {
      store_id: this.hotel_id,
      hotel_id: this.hotel_id,
      hotel_name: this.hotel_name,
      score: new PyFloat(this.score),
      star_rating: this.star_rating,
      location: this.location.toPy(),
      tags: this.tags,
      products: this.products.map((p) => p.toPy()),
    };
  }
}

export class Attraction {
  constructor(
    public attraction_id: string,
    public attraction_name: string,
    public location: Location,
    public description: string,
    public score: number,
    public opening_hours: string,
    public ticket_price: number,
    public products: OtaProduct[],
  ) {}
  private head(): string {
    return (
      `Attraction(attraction_id=${this.attraction_id}, attraction_name=${this.attraction_name}, ` +
      `location=${pydanticLocation(this.location)}, description=${this.description}, score=${fl(this.score)}, ` +
      `opening_hours=${this.opening_hours}, `
    );
  }
  /** Upstream's `__str__` stops after the opening hours, with a trailing ", " and no parenthesis. */
  strText(): string {
    return this.head();
  }
  pyRepr(): string {
    return `${this.head()}ticket_price=${fl(this.ticket_price)}, products=${productsRepr(this.products)})`;
  }
  toPy(): Record<string, unknown> {
    return {
      store_id: this.attraction_id,
      attraction_id: this.attraction_id,
      attraction_name: this.attraction_name,
      location: this.location.toPy(),
      description: this.description,
      score: new PyFloat(this.score),
      opening_hours: this.opening_hours,
      ticket_price: new PyFloat(this.ticket_price),
      products: this.products.map((p) => p.toPy()),
    };
  }
}

/** A flight or a train: the same shape, airports or stations as its two locations. */
export class Trip {
  constructor(
    readonly kind: "flight" | "train",
    public id: string,
    public number: string,
    public departure_city: string,
    public arrival_city: string,
    public departure_location: Location,
    public arrival_location: Location,
    public departure_time: string,
    public arrival_time: string,
    public tags: string[],
    public products: OtaProduct[],
  ) {}
  private names() {
    return this.kind === "flight"
      ? { cls: "Flight", id: "flight_id", no: "flight_number", loc: "airport_location" }
      : { cls: "Train", id: "train_id", no: "train_number", loc: "station_location" };
  }
  private head(): string {
    const n = this.names();
    return (
      `${n.cls}(${n.id}=${this.id}, ${n.no}=${this.number}, departure_city=${this.departure_city}, ` +
      `arrival_city=${this.arrival_city}, departure_${n.loc}=${pydanticLocation(this.departure_location)}, ` +
      `arrival_${n.loc}=${pydanticLocation(this.arrival_location)}, departure_time=${this.departure_time}, ` +
      `arrival_time=${this.arrival_time}, tags=${pyRepr(this.tags)}`
    );
  }
  strText(): string {
    return `${this.head()})`;
  }
  pyRepr(): string {
    return `${this.head()}, products=${productsRepr(this.products)})`;
  }
  toPy(): Record<string, unknown> {
    const n = this.names();
    return {
      store_id: this.id,
      [n.id]: this.id,
      [n.no]: this.number,
      departure_city: this.departure_city,
      arrival_city: this.arrival_city,
      [`departure_${n.loc}`]: this.departure_location.toPy(),
      [`arrival_${n.loc}`]: this.arrival_location.toPy(),
      departure_time: this.departure_time,
      arrival_time: this.arrival_time,
      tags: this.tags,
      products: this.products.map((p) => p.toPy()),
    };
  }
}
