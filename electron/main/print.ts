import type { WebContents, WebContentsPrintOptions } from 'electron';
import type { PrintRequest } from './ipc';

/**
 * Print settings for a slip or receipt. The back office lays the document out with its print
 * stylesheet in the calling window (which holds the staff session), so nothing secret has to be
 * handed to another window; the header names the document on paper and in the print queue.
 */
export function printOptions(request: PrintRequest): WebContentsPrintOptions {
  return {
    silent: false,
    printBackground: true,
    // Receipt printers (80 mm rolls) and office printers each know their paper best.
    usePrinterDefaultPageSize: true,
    header: `Paydesk ${request.kind} ${request.id}`,
  };
}

/** Opens the system print dialog for the calling window's page. */
export function printDocument(sender: Pick<WebContents, 'print'>, request: PrintRequest): Promise<{ printed: boolean; reason?: string }> {
  return new Promise((resolve) => {
    sender.print(printOptions(request), (success, failureReason) =>
      resolve(success ? { printed: true } : { printed: false, reason: failureReason || 'cancelled' }),
    );
  });
}
