import type { ResourceDeclaration } from '../declaration';

/** The versions a declaration's history keeps (decision 83's `retain.versions`; null: all). */
export function retainOf(declared: ResourceDeclaration['history']): number | null {
  return typeof declared === 'object' ? (declared.retain?.versions ?? null) : null;
}
