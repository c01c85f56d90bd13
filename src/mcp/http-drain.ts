import type { ServerResponse } from "node:http";

/** How a drain ended: every request answered, or the deadline cut some short. */
export interface DrainResult {
	/** Requests still unanswered at the deadline (their connections were closed). */
	cut: number;
	/** Event streams closed with a final event. */
	streams: number;
}

/**
 * The life of an HTTP endpoint behind a load balancer: ready once it serves, then, on `drain`, not ready, refusing
 * new work, and done when the requests it had accepted are answered (or the deadline passes). Event streams are not
 * requests being answered: they stay open until then, and are closed with a final event that says why.
 */
export class Lifecycle {
	#draining = false;
	#inFlight = new Set<ServerResponse>();
	#streams = new Map<ServerResponse, () => void>();
	#idle: (() => void) | undefined;

	/** True while the endpoint takes new work. */
	get ready(): boolean {
		return !this.#draining;
	}

	/** Counts `res` as in flight until it closes. False while draining: refuse the request. */
	admit(res: ServerResponse): boolean {
		if (this.#draining) return false;
		this.#inFlight.add(res);
		res.once("close", () => this.#settle(res));
		return true;
	}

	/**
	 * `res` became an event stream: it is no longer waited for, and `end` closes it (with its final event) when the
	 * drain ends.
	 */
	streaming(res: ServerResponse, end: () => void): void {
		this.#streams.set(res, end);
		res.once("close", () => this.#streams.delete(res));
		this.#settle(res);
	}

	/** Stops taking work, waits up to `timeoutMs` for accepted requests, then closes every event stream. */
	async drain(timeoutMs: number): Promise<DrainResult> {
		this.#draining = true;
		if (this.#inFlight.size > 0) {
			let timer: NodeJS.Timeout | undefined;
			await new Promise<void>((resolve) => {
				this.#idle = resolve;
				timer = setTimeout(resolve, timeoutMs);
			});
			clearTimeout(timer);
			this.#idle = undefined;
		}
		const cut = this.#inFlight.size;
		for (const res of this.#inFlight) res.destroy();
		const streams = this.#streams.size;
		for (const end of [...this.#streams.values()]) end();
		return { cut, streams };
	}

	#settle(res: ServerResponse): void {
		this.#inFlight.delete(res);
		if (this.#inFlight.size === 0) this.#idle?.();
	}
}
