#!/usr/bin/env python3
"""PyTorch reference for Redraw's presets: the same network, initialisation, batch, precision,
optimizer and schedule as the CUDA backend, timed eager and under torch.compile.

  python3 bench/torch_reference.py [--presets classic,siren,fourier] [--sizes 200,256,512]
                                   [--steps 200] [--precision fp32|tf32]
                                   [--modes eager,compile] [--json FILE]

Presets are read from assets/presets/NAME.json with the schema of engine/run_config.cpp
(parse_run_config); missing keys take the engine's defaults. Timing: a few warm-up steps (they
include torch.compile's compilation), then --steps steps, then torch.cuda.synchronize(), wall clock.
torch.compile compiles the forward pass and the loss (AOTAutograd compiles the backward with it);
the optimizer step stays eager, as in ordinary PyTorch code.
Prints "SKIPPED: no CUDA device" and exits 0 where torch or a GPU is missing.
"""
import argparse
import json
import math
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_preset(name):
    with open(os.path.join(ROOT, "assets", "presets", name + ".json")) as f:
        j = json.load(f)
    model = j.get("model", {})
    enc = model.get("encoding", {})
    hidden = model.get("hidden", [256, 256, 256])
    act = model.get("activation", "ReLU")
    acts = model.get("activations", [act] * len(hidden))
    opt = j.get("optimizer", {})
    sched = j.get("schedule", {})
    train = j.get("training", {})
    data = j.get("data", {})
    batch = train.get("batch", "full")
    return {
        "name": name,
        "encoding": enc.get("otype", "Identity"),
        "levels": enc.get("levels", 8),
        "features": enc.get("features", 256),
        "sigma": enc.get("sigma", 10.0),
        "hidden": hidden,
        "activations": acts,
        "output_activation": model.get("output_activation", "Sigmoid"),
        "init": model.get("init", "Xavier"),
        "omega_0": model.get("omega_0", 30.0),
        "loss": j.get("loss", {}).get("otype", "MSE"),
        "huber_delta": j.get("loss", {}).get("huber_delta", 0.1),
        "bce_epsilon": j.get("loss", {}).get("epsilon", 1e-6),
        "optimizer": opt.get("otype", "Adam"),
        "beta1": opt.get("beta1", 0.9),
        "beta2": opt.get("beta2", 0.999),
        "epsilon": opt.get("epsilon", 1e-8),
        "momentum": opt.get("momentum", 0.0),
        "nesterov": opt.get("nesterov", False),
        "weight_decay": opt.get("weight_decay", 0.0),
        "schedule": sched.get("otype", "Cosine"),
        "lr_max": sched.get("lr_max", 1e-3),
        "lr_min": sched.get("lr_min", 1e-6),
        "period": sched.get("period", 0),
        "batch": 0 if batch == "full" else int(batch),
        "steps": train.get("steps", 2000),
        "seed": train.get("seed", 1),
        # "auto" counts as RGB, as channels_of(Auto) does in cuda_bench (its pattern image is coloured).
        "channels": 3 if data.get("color_mode", "auto") in ("rgb", "auto") else 1,
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--presets", default="classic,siren,fourier")
    ap.add_argument("--sizes", default="")
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--precision", default="fp32", choices=["fp32", "tf32", "bf16"])
    ap.add_argument("--modes", default="eager,compile")
    ap.add_argument("--json", default="")
    args = ap.parse_args()

    try:
        import torch
    except ImportError as e:
        print(f"torch_reference: SKIPPED: no CUDA device: PyTorch is not installed ({e})")
        return 0
    if not torch.cuda.is_available():
        print("torch_reference: SKIPPED: no CUDA device: torch.cuda.is_available() is False")
        return 0
    # bf16 as Redraw's: matrix products with bf16 inputs, everything else fp32 (autocast keeps
    # fp32 weights; its matmul outputs are bf16, a little coarser than Redraw's fp32 outputs).
    tf32 = args.precision == "tf32"
    autocast = args.precision == "bf16"
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.backends.cudnn.allow_tf32 = tf32
    torch.set_float32_matmul_precision("high" if tf32 else "highest")
    dev = torch.device("cuda")
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name(0)}, precision {args.precision}")

    def activation(name, omega):
        n = name.lower()
        if n == "identity":
            return lambda z: z
        if n == "relu":
            return torch.relu
        if n == "leakyrelu":
            return lambda z: torch.nn.functional.leaky_relu(z, 0.01)
        if n == "tanh":
            return torch.tanh
        if n == "sigmoid":
            return torch.sigmoid
        if n == "softplus":
            return torch.nn.functional.softplus  # beta 1, threshold 20, as the engine
        if n == "sine":
            return lambda z: torch.sin(omega * z)
        raise ValueError(f"activation {name}")

    def build(p, w, h):
        g = torch.Generator(device="cpu").manual_seed(int(p["seed"]))
        enc = p["encoding"].lower()
        in_w = {"identity": 2, "positional": 2 + 4 * p["levels"], "fourier": 2 * p["features"]}[enc]
        widths = [in_w] + list(p["hidden"]) + [p["channels"]]
        params = []
        init = p["init"].lower()
        for li in range(len(widths) - 1):
            fan_in, fan_out = widths[li], widths[li + 1]
            if init == "xavier":
                wb, bb = math.sqrt(6.0 / (fan_in + fan_out)), 0.0
            elif init == "he":
                wb, bb = math.sqrt(6.0 / fan_in), 0.0
            else:  # SIREN
                wb = 1.0 / fan_in if li == 0 else math.sqrt(6.0 / fan_in) / p["omega_0"]
                bb = 1.0 / math.sqrt(fan_in)
            W = ((torch.rand(fan_out, fan_in, generator=g, dtype=torch.float64) * 2 - 1) * wb).float()
            b = ((torch.rand(fan_out, generator=g, dtype=torch.float64) * 2 - 1) * bb).float()
            params += [W.to(dev).requires_grad_(), b.to(dev).requires_grad_()]
        acts = [activation(a, p["omega_0"]) for a in p["activations"]] + [
            activation(p["output_activation"], p["omega_0"])]
        B = (torch.randn(p["features"], 2, generator=g) * p["sigma"]).to(dev) if enc == "fourier" else None

        xs = (2 * (torch.arange(w, dtype=torch.float32) + 0.5)) / w - 1
        ys = (2 * (torch.arange(h, dtype=torch.float32) + 0.5)) / h - 1
        coords = torch.stack(torch.meshgrid(ys, xs, indexing="ij")[::-1], dim=-1).reshape(-1, 2).to(dev)
        gx = torch.linspace(0, 17, w).view(1, w)
        gy = torch.linspace(0, 11, h).view(h, 1)
        img = torch.stack([0.5 + 0.45 * torch.sin(gx + gy + c) for c in range(p["channels"])], -1)
        targets = img.reshape(-1, p["channels"]).float().to(dev)

        def encode(xy):
            if enc == "identity":
                return xy
            if enc == "fourier":
                ph = math.pi * xy @ B.t()
                return torch.cat([torch.sin(ph), torch.cos(ph)], -1)
            parts = [xy]
            for k in range(p["levels"]):
                v = xy * (math.pi * 2 ** k)
                parts += [torch.sin(v[:, :1]), torch.cos(v[:, :1]), torch.sin(v[:, 1:]), torch.cos(v[:, 1:])]
            return torch.cat(parts, -1)

        loss_kind = p["loss"].lower()

        def loss_fn(x, t, *ps):
            y = x
            for li in range(len(ps) // 2):
                y = acts[li](torch.addmm(ps[2 * li + 1], y, ps[2 * li].t()))
            if loss_kind == "mse":
                return torch.mean((y - t) ** 2)
            if loss_kind == "l1":
                return torch.mean(torch.abs(y - t))
            if loss_kind == "huber":
                return torch.nn.functional.huber_loss(y, t, delta=p["huber_delta"])
            eps = p["bce_epsilon"]
            q = y.clamp(eps, 1 - eps)
            return -torch.mean(t * torch.log(q) + (1 - t) * torch.log(1 - q))

        # The encoded full batch is computed once, as the CUDA backend caches it.
        encoded = encode(coords) if p["batch"] == 0 else None
        if p["optimizer"].lower() == "adam":
            opt = torch.optim.Adam(params, lr=p["lr_max"], betas=(p["beta1"], p["beta2"]), eps=p["epsilon"],
                                   weight_decay=p["weight_decay"])
        else:
            opt = torch.optim.SGD(params, lr=p["lr_max"], momentum=p["momentum"], nesterov=p["nesterov"],
                                  weight_decay=p["weight_decay"])
        return params, opt, loss_fn, encoded, coords, targets, encode

    def lr_at(p, step):
        if p["schedule"].lower() == "constant":
            return p["lr_max"]
        period = p["period"] or p["steps"]
        s = min(step, period)
        return p["lr_min"] + (p["lr_max"] - p["lr_min"]) * 0.5 * (1 + math.cos(math.pi * s / period))

    def run_one(p, name, size, mode):
        torch.manual_seed(p["seed"])
        params, opt, loss_fn, encoded, coords, targets, encode = build(p, size, size)
        if mode == "compile":
            # A fresh Dynamo cache per configuration: otherwise the shape changes between
            # sizes turn on dynamic shapes, and after the recompile limit Dynamo silently
            # falls back to eager, so later "compile" rows would really be eager.
            torch._dynamo.reset()
            fn = torch.compile(loss_fn)
        else:
            fn = loss_fn
        n = coords.shape[0]
        batch = p["batch"] or n

        def step(i):
            for g in opt.param_groups:
                g["lr"] = lr_at(p, i)
            if p["batch"]:
                idx = torch.randint(0, n, (batch,), device=dev)
                x, t = encode(coords[idx]), targets[idx]
            else:
                x, t = encoded, targets
            opt.zero_grad(set_to_none=True)
            with torch.autocast("cuda", dtype=torch.bfloat16, enabled=autocast):
                loss = fn(x, t, *params)
            loss.backward()
            opt.step()

        for i in range(5):
            step(i)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for i in range(args.steps):
            step(5 + i)
        torch.cuda.synchronize()
        wall = time.perf_counter() - t0
        r = {"impl": "torch-" + mode, "preset": name, "size": size, "batch": batch,
             "precision": args.precision, "steps_per_s": args.steps / wall,
             "samples_per_s": args.steps / wall * batch, "torch": torch.__version__}
        print(f"{name:8} {size:6d} {mode:>8} {batch:8d} {r['steps_per_s']:9.1f} {r['samples_per_s']:11.3g}",
              flush=True)
        return r

    results = []
    print(f"{'preset':8} {'size':>6} {'mode':>8} {'batch':>8} {'steps/s':>9} {'samples/s':>11}")
    for name in [s for s in args.presets.split(",") if s]:
        p = load_preset(name)
        sizes = [int(s) for s in args.sizes.split(",") if s] or [200 if name == "classic" else 256, 512]
        for size in sizes:
            for mode in [m for m in args.modes.split(",") if m]:
                try:
                    results.append(run_one(p, name, size, mode))
                except Exception as e:  # e.g. torch.compile without Triton or a C compiler
                    msg = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
                    print(f"{name:8} {size:6d} {mode:>8} failed: {msg}", flush=True)
                    results.append({"impl": "torch-" + mode, "preset": name, "size": size, "error": msg})
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
