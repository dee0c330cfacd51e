/** The architectures TurnLab ships, registered once on first import. */
import { llama } from './llama';
import { qwen2 } from './qwen2';
import { qwen3 } from './qwen3';
import { findArchitecture, registerArchitecture } from './registry';

export const BUILT_IN_ARCHITECTURES = [qwen2, qwen3, llama];
for (const descriptor of BUILT_IN_ARCHITECTURES) if (!findArchitecture(descriptor.name)) registerArchitecture(descriptor);

export { findArchitecture, registerArchitecture, registeredArchitectures, type ArchitectureDescriptor, type BlockOptions } from './registry';
