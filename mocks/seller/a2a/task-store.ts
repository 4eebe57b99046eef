/**
 * A bounded in-memory A2A task store, scoped per owner (the caller's principal) like the SDK's
 * own store, so `tasks/get` from another principal finds nothing. The oldest task is dropped
 * beyond the bound. `update` lets the seller move an A2A task when its domain task completes.
 */
import type { ListTasksRequest, ListTasksResponse, Task } from '@a2a-js/sdk';
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';

export function ownerOf(context: ServerCallContext | undefined): string {
  return context?.user?.userName || 'anonymous';
}

export class BoundedTaskStore implements TaskStore {
  private readonly tasks = new Map<string, Task>();

  constructor(private readonly maxTasks = 5_000) {}

  private key(owner: string, taskId: string): string {
    return `${owner}\u0000${taskId}`;
  }

  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    const task = this.tasks.get(this.key(ownerOf(context), taskId));
    return task ? structuredClone(task) : undefined;
  }

  async save(task: Task, context: ServerCallContext): Promise<void> {
    this.put(ownerOf(context), task);
  }

  async list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    const prefix = `${ownerOf(context)}\u0000`;
    const tasks = [...this.tasks.entries()]
      .filter(([k, t]) => k.startsWith(prefix) && (!params.contextId || t.contextId === params.contextId))
      .map(([, t]) => structuredClone(t));
    const pageSize = Math.min(Math.max(params.pageSize ?? 50, 1), 100);
    return { tasks: tasks.slice(0, pageSize), nextPageToken: '', pageSize, totalSize: tasks.length };
  }

  /** Applies `change` to a stored task of `owner`; false when the task is no longer kept. */
  update(owner: string, taskId: string, change: (task: Task) => Task): boolean {
    const existing = this.tasks.get(this.key(owner, taskId));
    if (!existing) return false;
    this.put(owner, change(structuredClone(existing)));
    return true;
  }

  private put(owner: string, task: Task): void {
    const key = this.key(owner, task.id);
    this.tasks.delete(key);
    this.tasks.set(key, structuredClone(task));
    while (this.tasks.size > this.maxTasks) this.tasks.delete(this.tasks.keys().next().value as string);
  }
}
