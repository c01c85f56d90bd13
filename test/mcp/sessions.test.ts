// Issue 18: the rules that share the HTTP endpoint's sessions, checked on the table itself (the HTTP tests drive
// them through real clients; a session busy with a request cannot be held open from outside, so the refusal is
// checked here).
import { describe, expect, it } from "vitest";
import { type Refusal, type Reservation, SessionTable } from "../../src/mcp/sessions.ts";

function open(table: SessionTable, client: string, id: string, closed: string[]): void {
	const place = table.reserve(client);
	if ("refused" in place) throw new Error(place.refused);
	place.commit(id, () => closed.push(id));
}

describe("SessionTable", () => {
	it("closes the idle session of the client holding the most, least recently used first", () => {
		const closed: string[] = [];
		const table = new SessionTable({ maxSessions: 4, maxPerClient: 10, idleMs: 60_000 });
		open(table, "hog", "h1", closed);
		open(table, "small", "s1", closed);
		open(table, "hog", "h2", closed);
		open(table, "hog", "h3", closed);
		for (const [id, at] of [
			["h1", 40],
			["s1", 10],
			["h2", 20],
			["h3", 30],
		] as const)
			table.begin(id, false, at);
		open(table, "new", "n1", closed);
		expect(closed).toEqual(["h2"]);
		expect(table.size).toBe(4);
	});

	it("never closes a busy session, and says so in its refusal when every one is busy", () => {
		const closed: string[] = [];
		const table = new SessionTable({ maxSessions: 2, maxPerClient: 10, idleMs: 60_000 });
		open(table, "a", "a1", closed);
		open(table, "b", "b1", closed);
		const doneA = table.begin("a1");
		const doneB = table.begin("b1");
		const refused = table.reserve("c") as Refusal;
		expect(refused.refused).toContain("All 2 sessions are busy (idle sessions are closed first to make room)");
		expect(closed).toEqual([]);
		doneB();
		expect("commit" in (table.reserve("c") as Reservation)).toBe(true);
		expect(closed).toEqual(["b1"]);
		doneA();
	});

	it("closes a client's own oldest session when it is over its share, and counts reservations", () => {
		const closed: string[] = [];
		const table = new SessionTable({ maxSessions: 10, maxPerClient: 2, idleMs: 60_000 });
		open(table, "other", "o1", closed);
		open(table, "hog", "h1", closed);
		open(table, "hog", "h2", closed);
		const pending = table.reserve("hog") as Reservation;
		expect(closed).toEqual(["h1"]);
		const busy = table.begin("h2");
		expect((table.reserve("hog") as Refusal).refused).toContain("holds 2 sessions, the most one client may");
		busy();
		pending.release();
		expect(table.has("o1")).toBe(true);
	});

	it("sweeps sessions idle past the limit, but not busy ones", () => {
		const closed: string[] = [];
		const table = new SessionTable({ maxSessions: 10, maxPerClient: 10, idleMs: 1000 });
		open(table, "a", "a1", closed);
		open(table, "b", "b1", closed);
		const busy = table.begin("b1", true, 0);
		table.begin("a1", false, 0);
		table.sweep(5000);
		expect(closed).toEqual(["a1"]);
		busy();
		table.sweep(5000);
		expect(closed).toEqual(["a1", "b1"]);
	});
});
