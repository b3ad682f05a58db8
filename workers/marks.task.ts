/**
 * Piscina task: marks, Greeks and margin-scenario values for a batch of series, computed
 * with the engine's own pure function so the result does not depend on where it ran.
 */
import { computeMarks, type MarkInput } from '../engine/flows/marks.ts';
import type { SeriesMarks } from '../engine/commands.ts';

export default function marksTask(inputs: readonly MarkInput[]): SeriesMarks[] {
  return inputs.map(computeMarks);
}
