import { setTimeout as sleep } from "node:timers/promises";
import { RACY_MARGIN_MS } from "../../src/discovery/cache.ts";

/**
 * Waits until files written before this call are old enough for their signature to vouch for their content: a
 * scan trusts a remembered read only for files that last changed well before the scan began (the racy-git rule).
 */
export function pastRacyWindow(): Promise<void> {
	return sleep(RACY_MARGIN_MS + 150);
}
