#!/usr/bin/env python3
"""Print the commits between two git refs as JSON lines: hash, subject, body, parents, type."""
import json
import re
import subprocess
import sys

TYPE = re.compile(r"^(feat|fix|perf|refactor|docs|test|chore|build|ci)(\(.+\))?(!)?:")


def commits(start: str, end: str):
    fmt = "%H%x1f%P%x1f%s%x1f%b%x1e"
    out = subprocess.run(
        ["git", "log", f"--format={fmt}", f"{start}..{end}"],
        check=True, capture_output=True, text=True,
    ).stdout
    for record in filter(None, (r.strip() for r in out.split("\x1e"))):
        sha, parents, subject, body = (record.split("\x1f") + ["", "", ""])[:4]
        match = TYPE.match(subject)
        yield {
            "hash": sha[:12],
            "parents": len(parents.split()),
            "subject": subject,
            "body": body.strip(),
            "type": match.group(1) if match else "other",
            "breaking": bool(match and match.group(3)) or "BREAKING CHANGE" in body,
        }


def main() -> int:
    if len(sys.argv) not in (2, 3):
        print("usage: collect_commits.py START [END]", file=sys.stderr)
        return 2
    start = sys.argv[1]
    end = sys.argv[2] if len(sys.argv) == 3 else "HEAD"
    try:
        for commit in commits(start, end):
            print(json.dumps(commit))
    except subprocess.CalledProcessError as error:
        print(f"git log failed: {error.stderr.strip()}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
