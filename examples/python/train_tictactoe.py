#!/usr/bin/env python3
"""Train tic-tac-toe from Python and plot its loss.

polyzero.train runs the self-play trainer (the poly learner: no LibTorch needed) and hands
every metrics line to a callback while it runs; the loss curve is drawn as an SVG file, and
the trained model then plays a few games against a random player.

    ninja -C build polyzero_python
    PYTHONPATH=build/python python3 examples/python/train_tictactoe.py [--steps 600] [--run-dir runs/ttt-python]
"""
import argparse
import os
import tempfile

import polyzero


def write_svg(path, points, title):
    """A line plot of (step, loss) points, 480×240, axes labelled with their ranges."""
    width, height, margin = 480, 240, 40
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    sx = (width - 2 * margin) / max(x1 - x0, 1)
    sy = (height - 2 * margin) / max(y1 - y0, 1e-9)
    line = " ".join(f"{margin + (x - x0) * sx:.1f},{height - margin - (y - y0) * sy:.1f}" for x, y in points)
    with open(path, "w") as out:
        out.write(f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}">'
                  f'<text x="{margin}" y="20" font-size="13">{title}</text>'
                  f'<polyline fill="none" stroke="#1f77b4" stroke-width="1.5" points="{line}"/>'
                  f'<text x="{margin}" y="{height - 10}" font-size="11">step {x0}–{x1}</text>'
                  f'<text x="{width - 150}" y="{height - 10}" font-size="11">loss {y0:.3f}–{y1:.3f}</text></svg>\n')


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=600)
    parser.add_argument("--run-dir", default="", help="a new run directory (default: a temporary one)")
    parser.add_argument("--plot", default="loss.svg")
    args = parser.parse_args()
    run_dir = args.run_dir or os.path.join(tempfile.mkdtemp(prefix="polyzero-"), "run")

    losses = []

    def on_metrics(line):
        if line["kind"] == "train":
            losses.append((line["step"], line["loss"]))
            if len(losses) % 10 == 0:
                print(f"step {line['step']:5d}  loss {line['loss']:.3f}  lr {line['lr']:.4f}")

    result = polyzero.train(game="tictactoe", run_dir=run_dir, steps=args.steps, on_metrics=on_metrics,
                            config={"eval": {"every_steps": 0}})
    print(f"trained to step {result.step} in {result.seconds:.0f} s ({result.games} self-play games); model {result.model}")
    write_svg(args.plot, losses, f"tic-tac-toe, {result.step} steps")
    print(f"loss curve: {args.plot}")

    game = polyzero.load_game("tictactoe")
    match = polyzero.match(game, f"mcts:model={result.model},sims=64", "random", games=10)
    print(f"against random: {match.wins} wins, {match.draws} draws, {match.losses} losses")


if __name__ == "__main__":
    main()
