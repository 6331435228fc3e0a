// The scarce resources a lane contends for (DESIGN §2).
export type Resource = 'gpu' | 'cpu' | 'network' | 'disk' | 'spend';
export const RESOURCES: readonly Resource[] = ['gpu', 'cpu', 'network', 'disk', 'spend'];
