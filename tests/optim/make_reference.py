#!/usr/bin/env python3
"""Writes reference.json: learning rates as PyTorch's torch.optim.lr_scheduler computes them.

PyTorch's schedulers are plain Python float arithmetic on the optimiser's param-group dicts,
so re-running the same statements here (a small stand-in for the optimiser, the schedulers'
__init__/step/get_lr/_get_closed_form_lr transcribed in PyTorch's operation order) gives the
very doubles PyTorch produces, without needing torch installed. Each case records both what
step() produces (the recursive/chainable form, i.e. what a PyTorch user sees) and, where
PyTorch has one, the closed form.

Schedules PyTorch lacks are computed from their reference formulas instead: poly with an end
lr (TF / timm / mmengine), inverse_poly (Caffe "inv": base * (1 + gamma*iter)^-power with
gamma = 1/T), and exponential warmup (mmcv: ratio^(1 - t/W), which PyTorch users write as a
LambdaLR inside a SequentialLR).

Usage: python3 make_reference.py > reference.json
"""
import json
import math
from bisect import bisect_right
from collections import Counter


class Opt:
    def __init__(self, lrs, momentum=None, betas=False):
        self.param_groups = [{"lr": lr} for lr in lrs]
        self.defaults = {}
        if momentum is not None:
            if betas:
                self.defaults["betas"] = (0.9, 0.999)
                for g in self.param_groups:
                    g["betas"] = (momentum, 0.999)
            else:
                self.defaults["momentum"] = momentum
                for g in self.param_groups:
                    g["momentum"] = momentum


class Sched:
    def __init__(self, opt, last_epoch=-1):
        self.optimizer = opt
        for g in opt.param_groups:
            g.setdefault("initial_lr", g["lr"])
        self.base_lrs = [g["initial_lr"] for g in opt.param_groups]
        self.last_epoch = last_epoch
        self._initial_step()

    def _initial_step(self):
        self._step_count = 0
        self._is_initial = True
        self.step()
        self._is_initial = False

    def step(self):
        self._step_count += 1
        self._update_lr(None)

    def _update_lr(self, epoch):
        if epoch is None:
            self.last_epoch += 1
            values = self.get_lr()
        else:
            self.last_epoch = epoch
            values = self._get_closed_form_lr() if hasattr(self, "_get_closed_form_lr") else self.get_lr()
        for g, lr in zip(self.optimizer.param_groups, values):
            g["lr"] = lr
        self._last_lr = [g["lr"] for g in self.optimizer.param_groups]

    def groups(self):
        return self.optimizer.param_groups


class PolynomialLR(Sched):
    def __init__(self, opt, total_iters=5, power=1.0):
        self.total_iters, self.power = total_iters, power
        super().__init__(opt)

    def get_lr(self):
        if self._is_initial or self.last_epoch > self.total_iters:
            return [g["lr"] for g in self.groups()]
        decay_factor = ((1.0 - self.last_epoch / self.total_iters) / (1.0 - (self.last_epoch - 1) / self.total_iters)) ** self.power
        return [g["lr"] * decay_factor for g in self.groups()]

    def _get_closed_form_lr(self):
        return [b * (1.0 - min(self.total_iters, self.last_epoch) / self.total_iters) ** self.power for b in self.base_lrs]


class LinearLR(Sched):
    def __init__(self, opt, start_factor=1.0 / 3, end_factor=1.0, total_iters=5):
        self.start_factor, self.end_factor, self.total_iters = start_factor, end_factor, total_iters
        super().__init__(opt)

    def get_lr(self):
        if self.last_epoch == 0:
            return [g["lr"] * self.start_factor for g in self.groups()]
        if self._is_initial or self.last_epoch > self.total_iters:
            return [g["lr"] for g in self.groups()]
        return [g["lr"] * (1.0 + (self.end_factor - self.start_factor) /
                           (self.total_iters * self.start_factor + (self.last_epoch - 1) * (self.end_factor - self.start_factor)))
                for g in self.groups()]

    def _get_closed_form_lr(self):
        return [b * (self.start_factor + (self.end_factor - self.start_factor) * min(self.total_iters, self.last_epoch) / self.total_iters)
                for b in self.base_lrs]


class ConstantLR(Sched):
    def __init__(self, opt, factor=1.0 / 3, total_iters=5):
        self.factor, self.total_iters = factor, total_iters
        super().__init__(opt)

    def get_lr(self):
        if self.last_epoch == 0:
            return [g["lr"] * self.factor for g in self.groups()]
        if self.last_epoch != self.total_iters:
            return [g["lr"] for g in self.groups()]
        return [g["lr"] * (1.0 / self.factor) for g in self.groups()]

    def _get_closed_form_lr(self):
        return [b * (self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor)) for b in self.base_lrs]


class StepLR(Sched):
    def __init__(self, opt, step_size, gamma=0.1):
        self.step_size, self.gamma = step_size, gamma
        super().__init__(opt)

    def get_lr(self):
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return [g["lr"] for g in self.groups()]
        return [g["lr"] * self.gamma for g in self.groups()]

    def _get_closed_form_lr(self):
        return [b * self.gamma ** (self.last_epoch // self.step_size) for b in self.base_lrs]


class MultiStepLR(Sched):
    def __init__(self, opt, milestones, gamma=0.1):
        self.milestones, self.gamma = Counter(milestones), gamma
        super().__init__(opt)

    def get_lr(self):
        if self.last_epoch not in self.milestones:
            return [g["lr"] for g in self.groups()]
        return [g["lr"] * self.gamma ** self.milestones[self.last_epoch] for g in self.groups()]

    def _get_closed_form_lr(self):
        ms = sorted(self.milestones.elements())
        return [b * self.gamma ** bisect_right(ms, self.last_epoch) for b in self.base_lrs]


class ExponentialLR(Sched):
    def __init__(self, opt, gamma):
        self.gamma = gamma
        super().__init__(opt)

    def get_lr(self):
        if self._is_initial:
            return [g["lr"] for g in self.groups()]
        return [g["lr"] * self.gamma for g in self.groups()]

    def _get_closed_form_lr(self):
        return [b * self.gamma ** self.last_epoch for b in self.base_lrs]


class CosineAnnealingLR(Sched):
    def __init__(self, opt, T_max, eta_min=0.0):
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(opt)

    def get_lr(self):
        if self._is_initial:
            return [g["lr"] for g in self.groups()]
        if (self.last_epoch - 1 - self.T_max) % (2 * self.T_max) == 0:
            return [g["lr"] + (b - self.eta_min) * (1 - math.cos(math.pi / self.T_max)) / 2
                    for b, g in zip(self.base_lrs, self.groups())]
        return [(1 + math.cos(math.pi * self.last_epoch / self.T_max)) / (1 + math.cos(math.pi * (self.last_epoch - 1) / self.T_max))
                * (g["lr"] - self.eta_min) + self.eta_min for g in self.groups()]

    def _get_closed_form_lr(self):
        return [self.eta_min + (b - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2 for b in self.base_lrs]


class CosineAnnealingWarmRestarts(Sched):
    def __init__(self, opt, T_0, T_mult=1, eta_min=0.0):
        self.T_0, self.T_i, self.T_mult, self.eta_min, self.T_cur = T_0, T_0, T_mult, eta_min, -1
        super().__init__(opt)

    def get_lr(self):
        return [self.eta_min + (b - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2 for b in self.base_lrs]

    def step(self, epoch=None):
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            self.T_i = self.T_0
            self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        for g, lr in zip(self.groups(), self.get_lr()):
            g["lr"] = lr
        self._last_lr = [g["lr"] for g in self.groups()]

    def _update_lr(self, epoch):  # SequentialLR restart
        self.step(epoch)


class LambdaLR(Sched):
    def __init__(self, opt, fn):
        self.fn = fn
        super().__init__(opt)

    def get_lr(self):
        return [b * self.fn(self.last_epoch) for b in self.base_lrs]


class OneCycleLR(Sched):
    def __init__(self, opt, max_lr, total_steps, pct_start=0.3, anneal_strategy="cos", cycle_momentum=True,
                 base_momentum=0.85, max_momentum=0.95, div_factor=25.0, final_div_factor=1e4, three_phase=False):
        self.total_steps = total_steps
        if three_phase:
            self.phases = [
                {"end_step": float(pct_start * total_steps) - 1, "start_lr": "initial_lr", "end_lr": "max_lr",
                 "start_momentum": "max_momentum", "end_momentum": "base_momentum"},
                {"end_step": float(2 * pct_start * total_steps) - 2, "start_lr": "max_lr", "end_lr": "initial_lr",
                 "start_momentum": "base_momentum", "end_momentum": "max_momentum"},
                {"end_step": total_steps - 1, "start_lr": "initial_lr", "end_lr": "min_lr",
                 "start_momentum": "max_momentum", "end_momentum": "max_momentum"}]
        else:
            self.phases = [
                {"end_step": float(pct_start * total_steps) - 1, "start_lr": "initial_lr", "end_lr": "max_lr",
                 "start_momentum": "max_momentum", "end_momentum": "base_momentum"},
                {"end_step": total_steps - 1, "start_lr": "max_lr", "end_lr": "min_lr",
                 "start_momentum": "base_momentum", "end_momentum": "max_momentum"}]
        self.anneal = anneal_strategy
        max_lrs = max_lr if isinstance(max_lr, list) else [max_lr] * len(opt.param_groups)
        for i, g in enumerate(opt.param_groups):
            g["initial_lr"] = max_lrs[i] / div_factor
            g["max_lr"] = max_lrs[i]
            g["min_lr"] = g["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1 = "betas" in opt.defaults
            for g in opt.param_groups:
                if self.use_beta1:
                    g["betas"] = (max_momentum, *g["betas"][1:])
                else:
                    g["momentum"] = max_momentum
                g["max_momentum"] = max_momentum
                g["base_momentum"] = base_momentum
        super().__init__(opt)

    def _anneal(self, start, end, pct):
        if self.anneal == "cos":
            cos_out = math.cos(math.pi * pct) + 1
            return end + (start - end) / 2.0 * cos_out
        return (end - start) * pct + start

    def get_lr(self):
        step_num = self.last_epoch
        if step_num > self.total_steps:
            raise ValueError("Tried to step {} times".format(step_num))
        lrs = []
        for g in self.groups():
            start_step = 0.0
            for i, phase in enumerate(self.phases):
                end_step = phase["end_step"]
                if step_num <= end_step or i == len(self.phases) - 1:
                    pct = (step_num - start_step) / (end_step - start_step)
                    lr = self._anneal(g[phase["start_lr"]], g[phase["end_lr"]], pct)
                    if self.cycle_momentum:
                        mom = self._anneal(g[phase["start_momentum"]], g[phase["end_momentum"]], pct)
                    break
                start_step = phase["end_step"]
            lrs.append(lr)
            if self.cycle_momentum:
                if self.use_beta1:
                    g["betas"] = (mom, *g["betas"][1:])
                else:
                    g["momentum"] = mom
        return lrs


class ReduceLROnPlateau:
    def __init__(self, opt, mode="min", factor=0.1, patience=10, threshold=1e-4, threshold_mode="rel", cooldown=0,
                 min_lr=0, eps=1e-8):
        self.optimizer = opt
        self.min_lrs = min_lr if isinstance(min_lr, list) else [min_lr] * len(opt.param_groups)
        self.mode, self.factor, self.patience, self.threshold = mode, factor, patience, threshold
        self.threshold_mode, self.cooldown, self.eps = threshold_mode, cooldown, eps
        self.best = math.inf if mode == "min" else -math.inf
        self.num_bad_epochs = 0
        self.cooldown_counter = 0
        self.last_epoch = 0

    def is_better(self, a, best):
        if self.mode == "min" and self.threshold_mode == "rel":
            return a < best * (1.0 - self.threshold)
        if self.mode == "min" and self.threshold_mode == "abs":
            return a < best - self.threshold
        if self.mode == "max" and self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    def step(self, metrics):
        current = float(metrics)
        self.last_epoch += 1
        if self.is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            for i, g in enumerate(self.optimizer.param_groups):
                old = float(g["lr"])
                new = max(old * self.factor, self.min_lrs[i])
                if old - new > self.eps:
                    g["lr"] = new
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0


class SequentialLR:
    def __init__(self, opt, schedulers, milestones):
        self._schedulers, self._milestones, self.optimizer = schedulers, milestones, opt
        self.last_epoch = 0
        for g in opt.param_groups:
            g["lr"] = g["initial_lr"]
        for s in schedulers:
            s.last_epoch -= 1
        schedulers[0]._initial_step()

    def step(self):
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        s = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            s._update_lr(0)
        else:
            s.step()


class ChainedScheduler:
    def __init__(self, schedulers):
        self._schedulers = schedulers

    def step(self):
        for s in self._schedulers:
            s.step()


# ---- schedules PyTorch does not have: reference formulas ------------------------------

def poly_end_lr(base, t, T, p, eta_min):  # TF polynomial_decay / timm / mmengine closed form
    return eta_min + (base - eta_min) * (1.0 - min(t, T) / T) ** p


def caffe_inv(base, t, T, p):  # Caffe sgd_solver.cpp "inv" with gamma = 1/T
    return base * (1.0 + (1.0 / T) * t) ** (-p)


# ---- cases ------------------------------------------------------------------------------

def run(make, lrs, steps, momentum=None, betas=False, metrics=None):
    opt = Opt(lrs, momentum, betas)
    sched = make(opt)
    table, moms = [], []
    for t in range(steps):
        if t > 0:
            if metrics is not None:
                sched.step(metrics[t - 1])
            else:
                sched.step()
        table.append([g["lr"] for g in opt.param_groups])
        if momentum is not None:
            moms.append([g["betas"][0] if betas else g["momentum"] for g in opt.param_groups])
    return table, moms


def closed(make, lrs, steps):
    """_get_closed_form_lr at every t (PyTorch's step(epoch) path)."""
    opt = Opt(lrs)
    sched = make(opt)
    table = []
    for t in range(steps):
        sched.last_epoch = t
        table.append(sched._get_closed_form_lr())
    return table


cases = []


def case(name, config, lrs, steps, make=None, has_closed=True, momentum=None, betas=False, metrics=None,
         formula=None):
    c = {"name": name, "config": config, "base_lrs": lrs, "steps": steps}
    if make is not None:
        table, moms = run(make, lrs, steps, momentum, betas, metrics)
        c["pytorch"] = table
        if moms:
            c["momentum"] = moms
        if has_closed:
            c["closed"] = closed(make, lrs, steps)
    if formula is not None:
        c["closed"] = [[formula(b, t) for b in lrs] for t in range(steps)]
    if metrics is not None:
        c["metrics"] = metrics
    cases.append(c)


two = [0.1, 0.025]

# PolynomialLR: past the end, power 0, fractional power, several groups
case("poly", {"type": "poly", "total_iters": 10, "power": 0.9}, two, 16, lambda o: PolynomialLR(o, 10, 0.9))
case("poly_power_1", {"type": "poly", "total_iters": 7}, [0.05], 12, lambda o: PolynomialLR(o, 7, 1.0))
case("poly_power_0", {"type": "poly", "total_iters": 5, "power": 0}, [0.1], 9, lambda o: PolynomialLR(o, 5, 0.0))
case("poly_one_step", {"type": "poly", "total_steps": 1, "power": 2}, [0.3], 4, lambda o: PolynomialLR(o, 1, 2.0))
case("poly_end_lr", {"type": "poly", "total_iters": 8, "power": 0.9, "eta_min": 0.001}, two, 12,
     formula=lambda b, t: poly_end_lr(b, t, 8, 0.9, 0.001))
case("inverse_poly", {"type": "inverse_poly", "decay_steps": 100, "power": 0.5}, two, 300,
     formula=lambda b, t: caffe_inv(b, t, 100, 0.5))
case("linear", {"type": "linear", "start_factor": 0.25, "end_factor": 0.75, "total_iters": 6}, two, 10,
     lambda o: LinearLR(o, 0.25, 0.75, 6))
case("linear_defaults", {"type": "linear"}, [0.05], 8, lambda o: LinearLR(o))
case("constant", {"type": "constant", "factor": 0.5, "total_iters": 4}, two, 8, lambda o: ConstantLR(o, 0.5, 4))
case("step", {"type": "step", "step_size": 3, "gamma": 0.5}, two, 12, lambda o: StepLR(o, 3, 0.5))
case("multistep", {"type": "multistep", "milestones": [2, 5, 9], "gamma": 0.3}, two, 12,
     lambda o: MultiStepLR(o, [2, 5, 9], 0.3))
case("exponential", {"type": "exponential", "gamma": 0.93}, two, 40, lambda o: ExponentialLR(o, 0.93))
case("cosine", {"type": "cosine", "T_max": 10, "eta_min": 0.001}, two, 45, lambda o: CosineAnnealingLR(o, 10, 0.001))
case("cosine_no_min", {"type": "cosine", "T_max": 7}, [0.1], 30, lambda o: CosineAnnealingLR(o, 7))
case("cosine_warm_restarts", {"type": "cosine_warm_restarts", "T_0": 3, "T_mult": 2, "eta_min": 0.0005}, two, 40,
     lambda o: CosineAnnealingWarmRestarts(o, 3, 2, 0.0005), has_closed=False)
case("cosine_warm_restarts_mult1", {"type": "cosine_warm_restarts", "T_0": 5}, [0.1], 17,
     lambda o: CosineAnnealingWarmRestarts(o, 5), has_closed=False)
case("lambda", {"type": "lambda", "lr_lambda": "decay_0.95"}, two, 10, lambda o: LambdaLR(o, lambda t: 0.95 ** t),
     has_closed=False)

# OneCycleLR: cos and linear, two- and three-phase, SGD momentum and Adam beta1; the last
# step t = total_steps (overshoot) is included.
case("one_cycle", {"type": "one_cycle", "max_lr": 0.5, "total_steps": 20}, two, 21,
     lambda o: OneCycleLR(o, 0.5, 20), has_closed=False, momentum=0.9)
case("one_cycle_linear_three_phase",
     {"type": "one_cycle", "max_lr": [1.0, 0.1], "total_steps": 30, "pct_start": 0.25, "anneal_strategy": "linear",
      "three_phase": True, "div_factor": 10, "final_div_factor": 100},
     two, 31, lambda o: OneCycleLR(o, [1.0, 0.1], 30, 0.25, "linear", div_factor=10, final_div_factor=100,
                                    three_phase=True), has_closed=False, momentum=0.9)
case("one_cycle_adam", {"type": "one_cycle", "max_lr": 0.01, "total_steps": 12, "base_momentum": 0.8,
                        "max_momentum": 0.9}, [0.001], 13,
     lambda o: OneCycleLR(o, 0.01, 12, base_momentum=0.8, max_momentum=0.9), has_closed=False, momentum=0.9, betas=True)

# ReduceLROnPlateau, metric-driven
m1 = [1.0, 0.9, 0.95, 0.96, 0.97, 0.94, 0.99, 1.0, 1.1, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.0, 1.0, 1.0, 1.0]
case("plateau_min_rel", {"type": "reduce_on_plateau", "patience": 2, "factor": 0.5, "cooldown": 1, "min_lr": 0.02},
     two, len(m1) + 1, lambda o: ReduceLROnPlateau(o, patience=2, factor=0.5, cooldown=1, min_lr=0.02), has_closed=False,
     metrics=m1)
m2 = [0.1, 0.2, 0.2001, 0.25, 0.25, 0.25, 0.3, 0.30005, 0.3, 0.3, 0.3, 0.3]
case("plateau_max_abs", {"type": "reduce_on_plateau", "mode": "max", "threshold_mode": "abs", "threshold": 0.01,
                         "patience": 1, "min_lr": [0.0, 0.01]},
     two, len(m2) + 1, lambda o: ReduceLROnPlateau(o, "max", threshold_mode="abs", threshold=0.01, patience=1,
                                                    min_lr=[0.0, 0.01]), has_closed=False, metrics=m2)

# Composition
case("sequential", {"type": "sequential", "milestones": [5],
                    "schedulers": [{"type": "constant", "factor": 0.1, "total_iters": 5},
                                   {"type": "exponential", "gamma": 0.9}]},
     two, 12, lambda o: SequentialLR(o, [ConstantLR(o, 0.1, 5), ExponentialLR(o, 0.9)], [5]), has_closed=False)
case("sequential_three", {"type": "sequential", "milestones": [3, 8],
                          "schedulers": [{"type": "linear", "start_factor": 0.1, "total_iters": 3},
                                         {"type": "cosine", "T_max": 5, "eta_min": 0.002},
                                         {"type": "step", "step_size": 2, "gamma": 0.5}]},
     two, 15, lambda o: SequentialLR(o, [LinearLR(o, 0.1, 1.0, 3), CosineAnnealingLR(o, 5, 0.002), StepLR(o, 2, 0.5)],
                                     [3, 8]), has_closed=False)
case("chained", {"type": "chained", "schedulers": [{"type": "constant", "factor": 0.1, "total_iters": 20},
                                                   {"type": "exponential", "gamma": 0.9}]},
     [0.05], 25, lambda o: ChainedScheduler([ConstantLR(o, 0.1, 20), ExponentialLR(o, 0.9)]), has_closed=False)
case("chained_absolute_last", {"type": "chained", "schedulers": [{"type": "multistep", "milestones": [3, 6], "gamma": 0.5},
                                                                 {"type": "cosine_warm_restarts", "T_0": 4}]},
     [0.1], 12, lambda o: ChainedScheduler([MultiStepLR(o, [3, 6], 0.5), CosineAnnealingWarmRestarts(o, 4)]),
     has_closed=False)
case("chained_absolute_first", {"type": "chained", "schedulers": [{"type": "cosine_warm_restarts", "T_0": 4},
                                                                  {"type": "multistep", "milestones": [3, 6], "gamma": 0.5}]},
     [0.1], 12, lambda o: ChainedScheduler([CosineAnnealingWarmRestarts(o, 4), MultiStepLR(o, [3, 6], 0.5)]),
     has_closed=False)

# Warmup (prefix) == SequentialLR([warmup, main], milestones=[W]); W == the schedule length.
case("poly_warmup_linear", {"type": "poly", "total_iters": 10, "power": 0.9,
                            "warmup": {"type": "linear", "steps": 4, "start_factor": 0.01}},
     two, 18, lambda o: SequentialLR(o, [LinearLR(o, 0.01, 1.0, 4), PolynomialLR(o, 10, 0.9)], [4]), has_closed=False)
case("poly_warmup_equal_length", {"type": "poly", "total_iters": 6, "power": 2.0,
                                  "warmup": {"type": "linear", "steps": 6, "start_factor": 0.5}},
     [0.2], 15, lambda o: SequentialLR(o, [LinearLR(o, 0.5, 1.0, 6), PolynomialLR(o, 6, 2.0)], [6]), has_closed=False)
case("cosine_warmup_constant", {"type": "cosine", "T_max": 8, "warmup": {"type": "constant", "steps": 3, "factor": 0.2}},
     two, 14, lambda o: SequentialLR(o, [ConstantLR(o, 0.2, 3), CosineAnnealingLR(o, 8)], [3]), has_closed=False)
case("step_warmup_exponential", {"type": "step", "step_size": 4, "gamma": 0.5,
                                 "warmup": {"type": "exponential", "steps": 5, "start_factor": 0.001}},
     two, 16, lambda o: SequentialLR(o, [LambdaLR(o, lambda t: 0.001 ** (1.0 - t / 5)), StepLR(o, 4, 0.5)], [5]),
     has_closed=False)

print(json.dumps({"generator": "tests/optim/make_reference.py", "cases": cases}, indent=1))
