import type { BatonError } from '../../domain/errors/baton-error.ts';
import type { Engine } from '../../engine/index.ts';
import type { Resources } from '../../resources/index.ts';
import type { StreamSlots } from './stream-slots.ts';
import './face-request.ts';

/** Periodic clean-up a face needs (run by the sweeper, safe in several processes at once). */
export type SweepChore = () => Promise<unknown>;

/** Renders an error in a face's own format, with the HTTP status that face uses for it. */
export type ErrorRenderer = (error: BatonError) => { status: number; body: object };

/** What every face's routes receive. */
export interface FaceContext {
  engine: Engine;
  /** Apps, keys, agents, tools, toolsets and secrets, with their rules. */
  resources: Resources;
  /** The open-stream counts every long-lived stream takes a slot from (per app and in all). */
  streams: StreamSlots;
  /** Errors (auth, bad JSON, not found, …) under `prefix` are rendered by `render` instead of the native format. */
  useErrorFormat(prefix: string, render: ErrorRenderer): void;
  /** Registers clean-up to run on every sweeper pass. */
  addSweepChore(chore: SweepChore): void;
}
