/**
 * VitaBench's pydantic models (upstream `data_model/tasks.py`, the domains' `data_model.py`) with
 * their custom `__repr__`/`__str__` texts, which tool results are made of, and their `model_dump`
 * (field order as declared, `float` fields as floats), which the DB hash and `--dump-db` use.
 */
import { OtaProduct } from "./models-ota.js";
import { fl, pyRepr, pyStr, PyFloat, type PyReprable, type PyValue } from "./py-value.js";

const f = (x: number | null): PyFloat | null => (x === null ? null : new PyFloat(x));

export class Location implements PyReprable {
  constructor(
    public address: string,
    public longitude: number,
    public latitude: number,
  ) {}
  pyRepr(): string {
    return `${this.address} longitude:${fl(this.longitude)},latitude:${fl(this.latitude)}`;
  }
  toPy(): Record<string, unknown> {
    return { address: this.address, longitude: f(this.longitude), latitude: f(this.latitude) };
  }
}

export class Weather implements PyReprable {
  constructor(
    public city: string,
    public category: string,
    public datetime: string,
    public temperature: [number, number],
    public humidity: number,
  ) {}
  pyRepr(): string {
    return (
      `city: ${this.city}, weather: ${this.category}, datetime: ${this.datetime}, ` +
      `temperature: ${fl(this.temperature[0])}~${fl(this.temperature[1])}, humidity: ${fl(this.humidity)}`
    );
  }
  toPy(): Record<string, unknown> {
    return {
      city: this.city,
      category: this.category,
      datetime: this.datetime,
      temperature: this.temperature.map((t) => new PyFloat(t)),
      humidity: f(this.humidity),
    };
  }
}

/** A delivery product (`StoreProduct`). */
export class StoreProduct implements PyReprable {
  readonly kind = "delivery";
  constructor(
    public product_id: string,
    public price: number,
    public quantity: number | null,
    public name: string,
    public store_id: string,
    public store_name: string,
    public attributes: string,
    public tags: string[],
  ) {}
  pyRepr(): string {
    return (
      `StoreProduct(store_name=${this.store_name}, store_id=${this.store_id}, product_name=${this.name}, ` +
      `product_id=${this.product_id}, attributes=${this.attributes}, quantity=${pyStr(this.quantity)}, ` +
      `price=${fl(this.price)}, tags=${pyRepr(this.tags)})`
    );
  }
  toPy(): Record<string, unknown> {
    return {
      product_id: this.product_id,
      price: f(this.price),
      quantity: this.quantity,
      name: this.name,
      store_id: this.store_id,
      store_name: this.store_name,
      attributes: this.attributes,
      tags: this.tags,
    };
  }
}

export class Store {
  constructor(
    public store_id: string,
    public name: string,
    public score: number,
    public location: Location,
    public tags: string[],
    public products: StoreProduct[],
  ) {}
  /** `str(store)`, used by searches: no products. */
  pyStr(): string {
    return (
      `Store(name=${this.name}, store_id=${this.store_id}, score=${fl(this.score)}, ` +
      `location=${this.location.pyRepr()}, tags=${pyRepr(this.tags)})`
    );
  }
  pyRepr(): string {
    return `${this.pyStr()}, products=${this.products.map((p) => p.pyRepr()).join("\n")}`;
  }
  toPy(): Record<string, unknown> {
    return {
      store_id: this.store_id,
      name: this.name,
      score: f(this.score),
      location: this.location.toPy(),
      tags: this.tags,
      products: this.products.map((p) => p.toPy()),
    };
  }
}

/** An in-store product (`ShopProduct`). */
export class ShopProduct implements PyReprable {
  readonly kind = "instore";
  constructor(
    public product_id: string,
    public price: number,
    public quantity: number | null,
    public name: string,
    public shop_id: string,
    public tags: string[],
  ) {}
  pyRepr(): string {
    return (
      `ShopProduct(shop_id=${this.shop_id}, product_id=${this.product_id}, name=${this.name}, ` +
      `price=${fl(this.price)}, quantity=${pyStr(this.quantity)}, tags=${pyRepr(this.tags)})`
    );
  }
  toPy(): Record<string, unknown> {
    return {
      product_id: this.product_id,
      price: f(this.price),
      quantity: this.quantity,
      name: this.name,
      shop_id: this.shop_id,
      tags: this.tags,
    };
  }
}

export class Shop {
  constructor(
    public shop_id: string,
    public shop_name: string,
    public score: number,
    public location: Location,
    public tags: string[],
    public enable_book: boolean,
    public book_price: number,
    public enable_reservation: boolean,
    public products: ShopProduct[],
  ) {}
  pyStr(): string {
    return (
      `Shop(shop_name=${this.shop_name}, shop_id=${this.shop_id}, score=${fl(this.score)}, ` +
      `location=${this.location.pyRepr()}, tags=${pyRepr(this.tags)}, enable_book=${pyRepr(this.enable_book)}, ` +
      `book_price=${fl(this.book_price)}, enable_reservation=${pyRepr(this.enable_reservation)})`
    );
  }
  toPy(): Record<string, unknown> {
    return {
      store_id: this.shop_id,
      shop_id: this.shop_id,
      shop_name: this.shop_name,
      score: f(this.score),
      location: this.location.toPy(),
      tags: this.tags,
      enable_book: this.enable_book,
      book_price: f(this.book_price),
      enable_reservation: this.enable_reservation,
      products: this.products.map((p) => p.toPy()),
    };
  }
}

export type OrderType = "delivery" | "instore" | "hotel" | "attraction" | "flight" | "train";

const ID_FIELD: Record<OrderType, string> = {
  delivery: "store_id",
  instore: "shop_id",
  hotel: "hotel_id",
  attraction: "attraction_id",
  flight: "flight_id",
  train: "train_id",
};

/** Products of an order: raw values when loaded from a task, product models when a tool made it. */
export type OrderProduct = PyValue | StoreProduct | ShopProduct | OtaProduct;

export class Order {
  constructor(
    public order_id: string,
    public order_type: OrderType,
    public user_id: string,
    public store_id: string,
    public note: string | null,
    public location: Location | null,
    public dispatch_time: string | null,
    public shipping_time: number | null,
    public delivery_time: string | null,
    public total_price: number,
    public create_time: string,
    public update_time: string,
    public status: string,
    public products: OrderProduct[],
  ) {
    if (!this.update_time && this.create_time) this.update_time = this.create_time;
  }
  private head(): string {
    return (
      `Order(order_id:${this.order_id}, order_type:${this.order_type}, user_id:${this.user_id}, ` +
      `${ID_FIELD[this.order_type]}:${this.store_id}, `
    );
  }
  private shipping(): string {
    return this.shipping_time === null ? "None" : fl(this.shipping_time);
  }
  /** `str(order)` (used by order searches; upstream's text ends with ", " and no parenthesis). */
  pyStr(): string {
    return (
      this.head() +
      `total_price:${fl(this.total_price)}, create_time:${this.create_time}, ` +
      `update_time:${this.update_time}, status:${this.status}, `
    );
  }
  pyRepr(): string {
    const tail =
      `total_price:${fl(this.total_price)}, create_time:${this.create_time}, update_time:${this.update_time}, ` +
      (this.order_type === "delivery" ? `note:${pyStr(this.note)}, ` : "") +
      `status:${this.status}, products:${pyRepr(this.products)})`;
    if (this.order_type !== "delivery") return this.head() + tail;
    return (
      this.head() +
      `dispatch_time:${pyStr(this.dispatch_time)}, shipping_time:${this.shipping()}, ` +
      `delivery_time:${pyStr(this.delivery_time)}, ` +
      tail
    );
  }
  toPy(): Record<string, unknown> {
    return {
      order_id: this.order_id,
      order_type: this.order_type,
      user_id: this.user_id,
      store_id: this.store_id,
      note: this.note,
      location: this.location ? this.location.toPy() : null,
      dispatch_time: this.dispatch_time,
      shipping_time: f(this.shipping_time),
      delivery_time: this.delivery_time,
      total_price: f(this.total_price),
      create_time: this.create_time,
      update_time: this.update_time,
      status: this.status,
      products: this.products.map((p) =>
        p instanceof StoreProduct || p instanceof ShopProduct || p instanceof OtaProduct ? p.toPy() : p,
      ),
    };
  }
}

export class BookInfo {
  constructor(
    public book_id: string,
    public shop_id: string,
    public book_time: string,
    public update_time: string,
    public customer_id: string,
    public customer_count: number,
    public book_price: number,
    public status: string,
  ) {}
  /** Upstream's text: no space after the first comma, no closing parenthesis. */
  pyRepr(): string {
    return (
      `BookInfo(book_id=${this.book_id},shop_id=${this.shop_id}, book_time=${this.book_time}, ` +
      `customer_id=${this.customer_id}, customer_count=${this.customer_count}, ` +
      `book_price=${fl(this.book_price)}, status=${this.status}`
    );
  }
  toPy(): Record<string, unknown> {
    return {
      book_id: this.book_id,
      shop_id: this.shop_id,
      book_time: this.book_time,
      update_time: this.update_time,
      customer_id: this.customer_id,
      customer_count: this.customer_count,
      book_price: f(this.book_price),
      status: this.status,
    };
  }
}

export class ReservationInfo {
  constructor(
    public reservation_id: string,
    public shop_id: string,
    public reservation_time: string,
    public update_time: string,
    public customer_id: string,
    public customer_count: number,
    public status: string,
  ) {}
  pyRepr(): string {
    return (
      `ReservationInfo(reservation_id=${this.reservation_id},shop_id=${this.shop_id}, ` +
      `reservation_time=${this.reservation_time}, customer_id=${this.customer_id}, ` +
      `customer_count=${this.customer_count}, status=${this.status}`
    );
  }
  toPy(): Record<string, unknown> {
    return {
      reservation_id: this.reservation_id,
      shop_id: this.shop_id,
      reservation_time: this.reservation_time,
      update_time: this.update_time,
      customer_id: this.customer_id,
      customer_count: this.customer_count,
      status: this.status,
    };
  }
}
