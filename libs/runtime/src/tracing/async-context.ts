/**
 * OpenTelemetry's context, kept across awaits by Node's AsyncLocalStorage: what makes the
 * span of an API request the active one where its handler appends, however many awaits
 * later. (The package that ships one, @opentelemetry/context-async-hooks, does the same.)
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { ROOT_CONTEXT } from '@opentelemetry/api';
import type { Context, ContextManager } from '@opentelemetry/api';

export class AsyncLocalContextManager implements ContextManager {
  private readonly storage = new AsyncLocalStorage<Context>();

  active(): Context {
    return this.storage.getStore() ?? ROOT_CONTEXT;
  }

  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(context: Context, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F> {
    return this.storage.run(context, () => fn.call(thisArg, ...args) as ReturnType<F>);
  }

  bind<T>(context: Context, target: T): T {
    if (typeof target !== 'function') return target;
    const run = (fn: (...args: unknown[]) => unknown, self: unknown, args: unknown[]): unknown => this.with(context, () => fn.apply(self, args));
    const bound = function (this: unknown, ...args: unknown[]): unknown {
      return run(target as (...args: unknown[]) => unknown, this, args);
    };
    return bound as T;
  }

  enable(): this {
    return this;
  }

  disable(): this {
    this.storage.disable();
    return this;
  }
}
