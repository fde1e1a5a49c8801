import { formatBytes } from "@skillrun/engine";

/**
 * Why a run ends when a file it stored was refused: the file would take its owner's stored files
 * past OWNER_STORAGE_MAX_BYTES (docs/decisions/0049-owner-storage-quota.md).
 */
export function fileOverQuotaMessage(file: string, quotaBytes: number): string {
  return `${file} would take the owner's stored files over their quota of ${formatBytes(quotaBytes)} (${quotaBytes} bytes, OWNER_STORAGE_MAX_BYTES); it was not kept`;
}
