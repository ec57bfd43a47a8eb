// Wakes this process's delivery worker as soon as a delivery was queued (it also looks every second,
// which is how a delivery queued by another process is found).
import { EventEmitter } from "node:events";

// On globalThis: Next.js may load this module once for the route handlers and once for the engine.
const holder = globalThis as unknown as { bootdeckDeliveryBus?: EventEmitter };
const bus = (holder.bootdeckDeliveryBus ??= new EventEmitter().setMaxListeners(0));

export function wakeDeliveries(): void {
  bus.emit("wake");
}

export function onDeliveriesQueued(listener: () => void): () => void {
  bus.on("wake", listener);
  return () => bus.off("wake", listener);
}
