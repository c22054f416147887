/** Telecom agent-side data model (upstream `tau2/domains/telecom/data_model.py`). */
import { T } from "../py-model.js";

const M = T.strictModel;

export const LineStatus = {
  ACTIVE: "Active",
  SUSPENDED: "Suspended",
  PENDING_ACTIVATION: "Pending Activation",
  CLOSED: "Closed",
} as const;
export const BillStatus = {
  DRAFT: "Draft",
  ISSUED: "Issued",
  AWAITING_PAYMENT: "Awaiting Payment",
  PAID: "Paid",
  OVERDUE: "Overdue",
  DISPUTED: "Disputed",
} as const;

const Address = M("Address", [
  { name: "street", t: T.str },
  { name: "city", t: T.str },
  { name: "state", t: T.str },
  { name: "zip_code", t: T.str },
]);
export const Plan = M("Plan", [
  { name: "plan_id", t: T.str },
  { name: "name", t: T.str },
  { name: "data_limit_gb", t: T.float },
  { name: "price_per_month", t: T.float },
  { name: "data_refueling_price_per_gb", t: T.float },
]);
export const Device = M("Device", [
  { name: "device_id", t: T.str },
  { name: "device_type", t: T.enumOf("phone", "router", "tablet", "watch", "other") },
  { name: "model", t: T.str },
  { name: "imei", t: T.opt(T.str), optional: true },
  { name: "is_esim_capable", t: T.bool },
  { name: "activated", t: T.bool, optional: true, default: false },
  { name: "activation_date", t: T.opt(T.datetime), optional: true },
  { name: "last_esim_transfer_date", t: T.opt(T.datetime), optional: true },
]);
export const Line = M("Line", [
  { name: "line_id", t: T.str },
  { name: "phone_number", t: T.str },
  {
    name: "status",
    t: T.enumOf(...Object.values(LineStatus)),
    optional: true,
    default: "Pending Activation",
  },
  { name: "plan_id", t: T.str },
  { name: "device_id", t: T.opt(T.str), optional: true },
  { name: "data_used_gb", t: T.float, optional: true, default: 0 },
  { name: "data_refueling_gb", t: T.float, optional: true, default: 0 },
  { name: "roaming_enabled", t: T.bool, optional: true, default: false },
  { name: "contract_end_date", t: T.opt(T.date), optional: true },
  { name: "last_plan_change_date", t: T.opt(T.date), optional: true },
  { name: "last_sim_replacement_date", t: T.opt(T.date), optional: true },
  { name: "suspension_start_date", t: T.opt(T.date), optional: true },
]);
export const LineItem = M("LineItem", [
  { name: "description", t: T.str },
  { name: "amount", t: T.float },
  { name: "date", t: T.date },
  { name: "item_type", t: T.str },
]);
export const Bill = M("Bill", [
  { name: "bill_id", t: T.str },
  { name: "customer_id", t: T.str },
  { name: "period_start", t: T.date },
  { name: "period_end", t: T.date },
  { name: "issue_date", t: T.date },
  { name: "total_due", t: T.float },
  { name: "due_date", t: T.date },
  { name: "line_items", t: T.list(LineItem), optional: true, default: [] },
  { name: "status", t: T.enumOf(...Object.values(BillStatus)), optional: true, default: "Draft" },
]);
const PaymentMethod = M("PaymentMethod", [
  { name: "method_type", t: T.enumOf("Credit Card", "Debit Card", "PayPal") },
  { name: "account_number_last_4", t: T.str },
  { name: "expiration_date", t: T.str },
]);
export const Customer = M("Customer", [
  { name: "customer_id", t: T.str },
  { name: "full_name", t: T.str },
  { name: "date_of_birth", t: T.str },
  { name: "email", t: T.str },
  { name: "phone_number", t: T.str },
  { name: "address", t: Address },
  {
    name: "account_status",
    t: T.enumOf("Active", "Suspended", "Pending Verification", "Closed"),
    optional: true,
    default: "Pending Verification",
  },
  { name: "payment_methods", t: T.list(PaymentMethod), optional: true, default: [] },
  { name: "line_ids", t: T.list(T.str), optional: true, default: [] },
  { name: "bill_ids", t: T.list(T.str), optional: true, default: [] },
  // Upstream's default is a `date` (DEFAULT_START_DATE) in a datetime field, kept unvalidated.
  { name: "created_at", t: T.datetime, optional: true, default: "2025-01-01" },
  { name: "last_extension_date", t: T.opt(T.date), optional: true },
  { name: "goodwill_credit_used_this_year", t: T.float, optional: true, default: 0 },
]);
export const TelecomDBType = M("TelecomDB", [
  { name: "plans", t: T.list(Plan), optional: true, default: [] },
  { name: "customers", t: T.list(Customer), optional: true, default: [] },
  { name: "lines", t: T.list(Line), optional: true, default: [] },
  { name: "bills", t: T.list(Bill), optional: true, default: [] },
  { name: "devices", t: T.list(Device), optional: true, default: [] },
]);

export interface PlanV {
  plan_id: string;
  name: string;
  data_limit_gb: number;
  price_per_month: number;
  data_refueling_price_per_gb: number;
}
export interface LineV {
  line_id: string;
  phone_number: string;
  status: string;
  plan_id: string;
  data_used_gb: number;
  data_refueling_gb: number;
  roaming_enabled: boolean;
  contract_end_date: string | null;
  suspension_start_date: string | null;
  [k: string]: unknown;
}
export interface LineItemV {
  description: string;
  amount: number;
  date: string;
  item_type: string;
}
export interface BillV {
  bill_id: string;
  customer_id: string;
  period_start: string;
  period_end: string;
  issue_date: string;
  total_due: number;
  due_date: string;
  line_items: LineItemV[];
  status: string;
}
export interface CustomerV {
  customer_id: string;
  full_name: string;
  date_of_birth: string;
  phone_number: string;
  line_ids: string[];
  bill_ids: string[];
  [k: string]: unknown;
}
export interface TelecomDBV {
  plans: PlanV[];
  customers: CustomerV[];
  lines: LineV[];
  bills: BillV[];
  devices: { device_id: string; [k: string]: unknown }[];
}
