// Asks Dawn (the `webgpu` package) for an adapter and a device, in a process of its own, and
// prints one JSON line: the adapter's info, or why there is none. Dawn writes its own warnings
// (Vulkan loader messages ending in paths on Dawn's build machine) straight to the process's
// stderr; the parent captures them here, so a user sees TurnLab's one line about the backend.
let result;
try {
  if (!process.env.XDG_RUNTIME_DIR) {
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    process.env.XDG_RUNTIME_DIR = mkdtempSync(join(tmpdir(), 'turnlab-xdg-'));
  }
  const webgpu = await import('webgpu');
  const gpu = webgpu.create([]);
  const adapter = await gpu.requestAdapter();
  if (!adapter) {
    result = { adapter: null };
  } else {
    const info = adapter.info ?? {};
    const device = await adapter.requestDevice();
    device.destroy();
    result = {
      adapter: {
        vendor: info.vendor,
        architecture: info.architecture,
        device: info.device,
        description: info.description,
        isFallbackAdapter: info.isFallbackAdapter,
      },
    };
  }
} catch (error) {
  result = { error: String(error instanceof Error ? error.message : error).split('\n')[0] };
}
process.stdout.write(`${JSON.stringify(result)}\n`);
// A live Dawn instance can keep the event loop alive.
process.exit(0);
