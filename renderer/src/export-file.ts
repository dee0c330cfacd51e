// The store's rows as a file: the desktop app asks where to save and writes them; the browser
// downloads them from `turnlab serve`, which names the file.
import type { Ref } from 'vue';
import type { ExportRequestDto } from '../../preload/contract';
import { api } from './api';
import { download, isDesktop, serverUrl } from './stores/transport';
import { showTransient } from './stores/transient';

/**
 * Saves or downloads the export and says so in `message`: where the desktop saved it (which
 * stays), or that the browser's download started (which goes once seen); nothing when the save
 * dialog was cancelled.
 */
export async function exportToFile(request: ExportRequestDto, message: Ref<string | null>): Promise<void> {
  if (isDesktop()) {
    const saved = await api.saveExport(request);
    if (saved) message.value = `saved ${saved.rows ?? 0} rows to ${saved.path}`;
    return;
  }
  const params: Record<string, string> = { what: request.what, format: request.format, runs: request.runIds.join(',') };
  if (request.evaluationId !== undefined) params.evaluation = String(request.evaluationId);
  download(serverUrl('/api/export', params));
  showTransient(message, 'download started');
}
