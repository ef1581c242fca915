/**
 * The scripted model of the noisy-neighbour phase (bench/noisy-neighbour.ts), given to Baton's
 * child in its config (BENCH_NOISY=1): `spin` calls the noisy tenant's looping jsFunction; its
 * (error) result, like anything else, is answered `done`.
 */
export const NOISY_PROGRAM_NAME = 'bench-noisy';
export const NOISY_PROGRAM = {
  rules: [{ when: { user: 'spin' }, call: { tool: 'spin', arguments: {} } }, { say: 'done' }],
};
