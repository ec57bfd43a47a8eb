// Wakes this process's delivery worker as soon as a delivery was queued (it also looks every second,
// which is how a delivery queued by another process is found).
import { EventEmitter } from "node:events";

const bus = new EventEmitter();
bus.setMaxListeners(0);

export function wakeDeliveries(): void {
  bus.emit("wake");
}

export function onDeliveriesQueued(listener: () => void): () => void {
  bus.on("wake", listener);
  return () => bus.off("wake", listener);
}
