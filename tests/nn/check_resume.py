"""Checks a run's metrics.jsonl after a kill and a resume (the resume tests of nn/ and distributed/).

usage: check_resume.py BEFORE AFTER CHECKPOINT_STEP [TARGET_STEP]

BEFORE is a copy of metrics.jsonl taken at the kill, AFTER the file once the resumed run
stopped. After the resume every step is logged once, the steps past the checkpoint are
contiguous (up to TARGET_STEP when given), the killed run had logged some of them, and each
step the resumed run redid has the same lr as before the kill.
"""
import json
import sys


def train_lines(path):
    out = {}
    for line in open(path):
        try:
            j = json.loads(line)
        except ValueError:
            continue  # a line cut short by the kill
        if j.get("kind") == "train":
            out.setdefault(j["step"], []).append(j)
    return out


def main():
    before_path, after_path, ckpt = sys.argv[1], sys.argv[2], int(sys.argv[3])
    before, after = train_lines(before_path), train_lines(after_path)
    assert all(len(v) == 1 for v in after.values()), "a step is logged twice after the resume"
    steps = sorted(after)
    target = int(sys.argv[4]) if len(sys.argv) > 4 else steps[-1]
    resumed = [s for s in steps if s > ckpt]
    assert resumed == list(range(ckpt + 1, target + 1)), f"steps after the checkpoint: {resumed[:5]}...{resumed[-5:]}"
    overlap = [s for s in resumed if s in before]
    assert overlap, "the killed run logged no step past its checkpoint"
    for s in overlap:
        assert before[s][0]["lr"] == after[s][0]["lr"], f"step {s}: lr {before[s][0]['lr']} before, {after[s][0]['lr']} after"
    print(f"resumed at {ckpt + 1}, ran to {target}; lr identical on {len(overlap)} redone steps")


main()
