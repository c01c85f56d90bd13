/** Limits of the session table. */
export interface SessionLimits {
	/** Most sessions open at once. */
	maxSessions: number;
	/** Most sessions one client (address and declared name) holds at once. */
	maxPerClient: number;
	/** A session with no request for this long is closed. */
	idleMs: number;
}

interface Entry {
	client: string;
	lastUsed: number;
	/** Requests of the session being answered now: a busy session is never closed to make room. */
	busy: number;
	close: () => void;
}

/** A place kept for a session being initialized; it becomes the session's entry once it has an id. */
export interface Reservation {
	commit(id: string, close: () => void): void;
	release(): void;
}

/** Why no session could be opened: a sentence for the 503 body. */
export interface Refusal {
	refused: string;
}

/**
 * The open MCP sessions of an HTTP endpoint, with the rules that keep them shared: a client that opens more than
 * its share closes its own oldest idle session; when the endpoint is full, the idle session used least recently,
 * of the client holding the most, is closed to make room; only when every session is busy is a client refused.
 * A closed client learns it from a 404 and initializes again.
 */
export class SessionTable {
	readonly #limits: SessionLimits;
	readonly #entries = new Map<string, Entry>();
	readonly #reserved = new Map<string, number>();

	constructor(limits: SessionLimits) {
		this.#limits = limits;
	}

	/** Sessions open, and places reserved for sessions being initialized. */
	get size(): number {
		let reserved = 0;
		for (const count of this.#reserved.values()) reserved += count;
		return this.#entries.size + reserved;
	}

	has(id: string): boolean {
		return this.#entries.has(id);
	}

	/** Keeps a place for a new session of `client`, closing idle sessions as the rules say, or says why not. */
	reserve(client: string): Reservation | Refusal {
		const { maxSessions, maxPerClient } = this.#limits;
		if (this.#holds(client) >= maxPerClient) {
			const own = this.#leastRecent((entry) => entry.client === client);
			if (!own)
				return { refused: `This client holds ${maxPerClient} sessions, the most one client may, and all are busy.` };
			this.#evict(own);
		}
		if (this.size >= maxSessions) {
			const victim = this.#leastRecent(() => true);
			if (!victim)
				return {
					refused: `All ${maxSessions} sessions are busy (idle sessions are closed first to make room). Try again shortly.`,
				};
			this.#evict(victim);
		}
		this.#reserved.set(client, (this.#reserved.get(client) ?? 0) + 1);
		let held = true;
		const release = () => {
			if (!held) return;
			held = false;
			const left = (this.#reserved.get(client) ?? 1) - 1;
			if (left > 0) this.#reserved.set(client, left);
			else this.#reserved.delete(client);
		};
		return {
			commit: (id, close) => {
				release();
				this.#entries.set(id, { client, lastUsed: Date.now(), busy: 0, close });
			},
			release,
		};
	}

	/**
	 * Marks a request of session `id` as started (the session was used now; while `busy`, it is never closed to make
	 * room); returns the function that marks it answered.
	 */
	begin(id: string, busy = true, now: number = Date.now()): () => void {
		const entry = this.#entries.get(id);
		if (!entry) return () => undefined;
		entry.lastUsed = now;
		if (!busy) return () => undefined;
		entry.busy++;
		let open = true;
		return () => {
			if (open) entry.busy--;
			open = false;
		};
	}

	/** Forgets a session that closed (the client ended it, or it was evicted). */
	remove(id: string): void {
		this.#entries.delete(id);
	}

	/** Closes every session idle for longer than the limit. */
	sweep(now: number = Date.now()): void {
		for (const [id, entry] of this.#entries) {
			if (entry.busy === 0 && now - entry.lastUsed >= this.#limits.idleMs) this.#evict(id);
		}
	}

	/** Closes every session. */
	closeAll(): void {
		for (const id of [...this.#entries.keys()]) this.#evict(id);
	}

	#holds(client: string): number {
		let count = this.#reserved.get(client) ?? 0;
		for (const entry of this.#entries.values()) if (entry.client === client) count++;
		return count;
	}

	/**
	 * The idle session (no request being answered) that `accept` allows, of the client holding the most sessions,
	 * used least recently; undefined when every such session is busy.
	 */
	#leastRecent(accept: (entry: Entry) => boolean): string | undefined {
		const holds = new Map<string, number>();
		for (const entry of this.#entries.values()) holds.set(entry.client, (holds.get(entry.client) ?? 0) + 1);
		let best: { id: string; held: number; lastUsed: number } | undefined;
		for (const [id, entry] of this.#entries) {
			if (entry.busy > 0 || !accept(entry)) continue;
			const held = holds.get(entry.client) ?? 0;
			if (!best || held > best.held || (held === best.held && entry.lastUsed < best.lastUsed))
				best = { id, held, lastUsed: entry.lastUsed };
		}
		return best?.id;
	}

	#evict(id: string): void {
		const entry = this.#entries.get(id);
		if (!entry) return;
		this.#entries.delete(id);
		entry.close();
	}
}
