/** Retail data model (upstream `tau2/domains/retail/data_model.py`). */
import { T } from "../py-model.js";

export const Variant = T.model("Variant", [
  { name: "item_id", t: T.str },
  { name: "options", t: T.dict(T.str) },
  { name: "available", t: T.bool },
  { name: "price", t: T.float },
]);
export const Product = T.model("Product", [
  { name: "name", t: T.str },
  { name: "product_id", t: T.str },
  { name: "variants", t: T.dict(Variant) },
]);
const UserName = T.model("UserName", [
  { name: "first_name", t: T.str },
  { name: "last_name", t: T.str },
]);
export const UserAddress = T.model("UserAddress", [
  { name: "address1", t: T.str },
  { name: "address2", t: T.str },
  { name: "city", t: T.str },
  { name: "country", t: T.str },
  { name: "state", t: T.str },
  { name: "zip", t: T.str },
]);
const CreditCard = T.model("CreditCard", [
  { name: "source", t: T.lit("credit_card") },
  { name: "id", t: T.str },
  { name: "brand", t: T.str },
  { name: "last_four", t: T.str },
]);
const Paypal = T.model("Paypal", [
  { name: "source", t: T.lit("paypal") },
  { name: "id", t: T.str },
]);
const GiftCard = T.model("GiftCard", [
  { name: "source", t: T.lit("gift_card") },
  { name: "id", t: T.str },
  { name: "balance", t: T.float },
]);
export const User = T.model("User", [
  { name: "user_id", t: T.str },
  { name: "name", t: UserName },
  { name: "address", t: UserAddress },
  { name: "email", t: T.str },
  { name: "payment_methods", t: T.dict(T.union("source", CreditCard, GiftCard, Paypal)) },
  { name: "orders", t: T.list(T.str) },
]);
const OrderFullfilment = T.model("OrderFullfilment", [
  { name: "tracking_id", t: T.list(T.str) },
  { name: "item_ids", t: T.list(T.str) },
]);
const OrderItem = T.model("OrderItem", [
  { name: "name", t: T.str },
  { name: "product_id", t: T.str },
  { name: "item_id", t: T.str },
  { name: "price", t: T.float },
  { name: "options", t: T.dict(T.str) },
]);
export const OrderPayment = T.model("OrderPayment", [
  { name: "transaction_type", t: T.lit("payment", "refund") },
  { name: "amount", t: T.float },
  { name: "payment_method_id", t: T.str },
]);
export const Order = T.model("Order", [
  { name: "order_id", t: T.str },
  { name: "user_id", t: T.str },
  { name: "address", t: UserAddress },
  { name: "items", t: T.list(OrderItem) },
  {
    name: "status",
    t: T.lit(
      "processed",
      "pending",
      "pending (item modified)",
      "delivered",
      "cancelled",
      "exchange requested",
      "return requested",
    ),
  },
  { name: "fulfillments", t: T.list(OrderFullfilment) },
  { name: "payment_history", t: T.list(OrderPayment) },
  { name: "cancel_reason", t: T.opt(T.lit("no longer needed", "ordered by mistake")), optional: true },
  { name: "exchange_items", t: T.opt(T.list(T.str)), optional: true },
  { name: "exchange_new_items", t: T.opt(T.list(T.str)), optional: true },
  { name: "exchange_payment_method_id", t: T.opt(T.str), optional: true },
  { name: "exchange_price_difference", t: T.opt(T.float), optional: true },
  { name: "return_items", t: T.opt(T.list(T.str)), optional: true },
  { name: "return_payment_method_id", t: T.opt(T.str), optional: true },
]);
export const RetailDBType = T.model("RetailDB", [
  { name: "products", t: T.dict(Product) },
  { name: "users", t: T.dict(User) },
  { name: "orders", t: T.dict(Order) },
]);

export interface RVariant {
  item_id: string;
  options: Map<string, string>;
  available: boolean;
  price: number;
}
export interface RProduct {
  name: string;
  product_id: string;
  variants: Map<string, RVariant>;
}
export interface RPaymentMethod {
  source: string;
  id: string;
  balance?: number;
}
export interface RUser {
  user_id: string;
  name: { first_name: string; last_name: string };
  address: Record<string, unknown>;
  email: string;
  payment_methods: Map<string, RPaymentMethod>;
  orders: string[];
}
export interface ROrderItem {
  name: string;
  product_id: string;
  item_id: unknown;
  price: number;
  options: Map<string, string>;
}
export interface ROrderPayment {
  transaction_type: string;
  amount: number;
  payment_method_id: unknown;
}
export interface ROrder {
  order_id: string;
  user_id: string;
  address: Record<string, unknown>;
  items: ROrderItem[];
  status: string;
  payment_history: ROrderPayment[];
  cancel_reason: unknown;
  exchange_items: unknown;
  exchange_new_items: unknown;
  exchange_payment_method_id: unknown;
  exchange_price_difference: unknown;
  return_items: unknown;
  return_payment_method_id: unknown;
}
