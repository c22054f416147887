/** The mock domain (upstream `tau2/domains/mock`): users with tasks, plus a user-side inbox. */
import type { Tau2DomainSpec, Tau2State } from "../environment.js";
import { PyError, pyIn, pyStr, valueError } from "../py-errors.js";
import { pyConstruct, pyDump, T } from "../py-model.js";
import { S, transferTool, type Toolkit } from "../toolkit.js";

const TaskStatus = T.lit("pending", "completed");
const MockTask = T.model("Task", [
  { name: "task_id", t: T.str },
  { name: "title", t: T.str },
  { name: "description", t: T.opt(T.str), optional: true },
  { name: "status", t: TaskStatus },
]);
const MockUser = T.model("User", [
  { name: "user_id", t: T.str },
  { name: "name", t: T.str },
  { name: "tasks", t: T.list(T.str) },
]);
export const MockDBType = T.model("MockDB", [
  { name: "tasks", t: T.dict(MockTask) },
  { name: "users", t: T.dict(MockUser) },
]);
const Notification = T.model("Notification", [
  { name: "notification_id", t: T.str },
  { name: "message", t: T.str },
  { name: "status", t: T.lit("unread", "read"), optional: true, default: "unread" },
  { name: "task_id", t: T.opt(T.str), optional: true },
]);
export const MockUserDBType = T.model("MockUserDB", [
  { name: "notifications", t: T.dict(Notification), optional: true, default: new Map() },
]);

interface Task {
  task_id: string;
  title: string;
  description: string | null;
  status: unknown;
}
interface User {
  user_id: string;
  name: string;
  tasks: unknown[];
}
interface Notif {
  notification_id: string;
  status: unknown;
}
const tasksOf = (s: Tau2State) => s.db.tasks as Map<string, Task>;
const usersOf = (s: Tau2State) => s.db.users as Map<string, User>;
function notificationsOf(s: Tau2State): Map<string, Notif> {
  const notifications = (s.userDb as { notifications?: Map<string, Notif> } | null)?.notifications;
  // After upstream's set_state aliases the user DB to the agent DB, the inbox is gone.
  if (!notifications) throw new PyError("AttributeError", "'MockDB' object has no attribute 'notifications'");
  return notifications;
}

function createTask(s: Tau2State, userId: unknown, title: unknown, description: unknown) {
  if (!pyIn(usersOf(s), userId)) throw valueError(`User ${pyStr(userId)} not found`);
  const taskId = `task_${tasksOf(s).size + 1}`;
  const task = pyConstruct<Task>(MockTask, { task_id: taskId, title, description, status: "pending" });
  tasksOf(s).set(taskId, task);
  usersOf(s)
    .get(userId as string)!
    .tasks.push(taskId);
  return task;
}

const toolkit: Toolkit<Tau2State> = {
  className: "MockTools",
  tools: [
    {
      name: "create_task",
      description: "Create a new task for a user.",
      params: [
        { name: "user_id", description: "The ID of the user creating the task", schema: S.str },
        { name: "title", description: "The title of the task", schema: S.str },
        {
          name: "description",
          description: "Optional description of the task",
          schema: S.str,
          default: { value: null },
        },
      ],
      mutates: true,
      run: (s, a) => pyDump(createTask(s, a.user_id, a.title, a.description), MockTask),
    },
    {
      name: "get_users",
      description: "Get all users in the database.",
      params: [],
      mutates: false,
      run: (s) => [...usersOf(s).values()].map((u) => pyDump(u, MockUser)),
    },
    {
      name: "update_task_status",
      description: "Update the status of a task.",
      params: [
        { name: "task_id", description: "The ID of the task to update", schema: S.str },
        {
          name: "status",
          description: "The new status of the task",
          schema: S.enumOf("pending", "completed"),
        },
      ],
      mutates: true,
      run: (s, a) => {
        if (!pyIn(tasksOf(s), a.task_id)) throw valueError(`Task ${pyStr(a.task_id)} not found`);
        const task = tasksOf(s).get(a.task_id as string)!;
        task.status = a.status; // plain attribute assignment upstream: not validated
        return pyDump(task, MockTask);
      },
    },
    transferTool<Tau2State>(),
  ],
  functions: [
    {
      name: "assert_number_of_tasks",
      params: [{ name: "user_id" }, { name: "expected_number" }],
      run: (s, a) => {
        if (!pyIn(usersOf(s), a.user_id)) throw valueError(`User ${pyStr(a.user_id)} not found`);
        return usersOf(s).get(a.user_id as string)!.tasks.length === a.expected_number;
      },
    },
    {
      name: "assert_task_status",
      params: [{ name: "task_id" }, { name: "expected_status" }],
      run: (s, a) => {
        if (!pyIn(tasksOf(s), a.task_id)) throw valueError(`Task ${pyStr(a.task_id)} not found`);
        return tasksOf(s).get(a.task_id as string)!.status === a.expected_status;
      },
    },
  ],
};

const userToolkit: Toolkit<Tau2State> = {
  className: "MockUserTools",
  tools: [
    {
      name: "check_notifications",
      description: "Check all notifications in the user's inbox.",
      params: [],
      mutates: false,
      run: (s) => [...notificationsOf(s).values()].map((n) => pyDump(n, Notification)),
    },
    {
      name: "dismiss_notification",
      description: "Dismiss (mark as read) a notification.",
      params: [
        { name: "notification_id", description: "The ID of the notification to dismiss.", schema: S.str },
      ],
      mutates: true,
      run: (s, a) => {
        if (!pyIn(notificationsOf(s), a.notification_id))
          throw valueError(`Notification ${pyStr(a.notification_id)} not found`);
        notificationsOf(s).get(a.notification_id as string)!.status = "read";
        return `Notification ${pyStr(a.notification_id)} dismissed`;
      },
    },
  ],
  functions: [
    {
      name: "add_notification",
      params: [
        { name: "notification_id" },
        { name: "message" },
        { name: "task_id", default: { value: null } },
      ],
      run: (s, a) => {
        const n = pyConstruct<Notif>(Notification, {
          notification_id: a.notification_id,
          message: a.message,
          task_id: a.task_id,
        });
        notificationsOf(s).set(a.notification_id as string, n);
        return n;
      },
    },
    {
      name: "assert_notification_status",
      params: [{ name: "notification_id" }, { name: "expected_status" }],
      run: (s, a) => {
        if (!pyIn(notificationsOf(s), a.notification_id))
          throw valueError(`Notification ${pyStr(a.notification_id)} not found`);
        return notificationsOf(s).get(a.notification_id as string)!.status === a.expected_status;
      },
    },
  ],
};

export const mockDomain: Tau2DomainSpec = {
  name: "mock",
  dbType: MockDBType,
  userDbType: MockUserDBType,
  toolkit,
  userToolkit,
};
