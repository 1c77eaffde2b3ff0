/** Which entities a record touches: one rule, kept with the story index that is built from it (libs/runtime/src/story). */
export { entitiesOf, entityIdsOf, taskItemOf } from '@shoal/runtime';
export type { EntityKind, EntityRef } from '@shoal/runtime';
