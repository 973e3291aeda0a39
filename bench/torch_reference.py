#!/usr/bin/env python3
"""PyTorch reference for Redraw's presets: the same network, initialisation, batch, precision,
optimizer and schedule as the CUDA backend, timed eager and under torch.compile.

The instant preset's HashGrid is written here in plain PyTorch (the engine's definition in
engine/hash_grid_math.h: floor(base * scale^l + 1e-6) cells per side, dense levels while they fit,
the hash (x * 1) xor (y * 2654435761) mod 2^log2 otherwise, bilinear or smoothstep weights), with the
table as one trainable tensor gathered per corner; autograd scatters its gradient. Adam applies
weight decay to the MLP only, as the engine does. Under --precision auto (Redraw's default) the
PyTorch peer computes in fp32; fp16 autocast is --precision fp16.

  python3 bench/torch_reference.py [--presets classic,siren,finer,gauss,wire,fourier,instant] [--sizes 200,256,512]
                                   [--steps 200] [--precision fp32|tf32]
                                   [--modes eager,compile] [--json FILE] [--grid-from FILE]
                                   [--device cuda|cpu] [--threads N] [--seconds S]

Every network preset has its peer (the activations and initialisations of engine/activation_math.h
and engine/model_spec.cpp, FINER's scale |z| + 1 differentiated as the engine does); gaussians is not
a network and has none. Each row records final_loss, the loss over every pixel after the timed steps.

A HashGrid's "auto" fields resolve for the image as a user's run resolves them (resolve_grid);
--grid-from FILE trains the grid another benchmark recorded instead (a cuda_bench JSON: its first
hash-grid row's "grid", or a bare grid object), and refuses one it cannot reproduce. Every row
of the JSON carries the resolved grid ("grid", the keys of bench/bench_grid.h's grid_json).

--device cpu runs the same networks on the CPU in fp32, subnormals flushed to zero as Redraw's CPU
backend computes, with --threads intra-op threads (the
CPU backend's batch, training.batch_cpu, where a preset has one), for bench/run_cpu_defaults_bench.sh.
--threads also fixes the BLAS's own thread count (OPENBLAS_NUM_THREADS and friends), since
torch.set_num_threads alone leaves OpenBLAS's pthread build on every core.
Set OMP_WAIT_POLICY=passive in the environment for PyTorch's best multi-threaded figure beside
other work. --seconds S times at least S seconds instead of exactly --steps steps.

Presets are read from assets/presets/NAME.json with the schema of engine/run_config.cpp
(parse_run_config); missing keys take the engine's defaults. Timing: a few warm-up steps (they
include torch.compile's compilation), then --steps steps, then torch.cuda.synchronize(), wall clock.
torch.compile compiles the forward pass and the loss (AOTAutograd compiles the backward with it);
the optimizer step stays eager, as in ordinary PyTorch code.
Prints "SKIPPED: no CUDA device" and exits 0 where torch or a GPU is missing (--device cuda).
"""
import argparse
import json
import math
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAX_GRID_RESOLUTION = 1 << 20  # engine/model_spec.cpp, k_max_grid_resolution


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
        "n_levels": enc.get("n_levels", 16),
        "n_features_per_level": enc.get("n_features_per_level", 2),
        "log2_hashmap_size": enc.get("log2_hashmap_size", 17),
        "base_resolution": enc.get("base_resolution", 16),
        "per_level_scale": enc.get("per_level_scale", 1.5),
        "finest_resolution": enc.get("finest_resolution", 0),
        "interpolation": enc.get("interpolation", "Linear"),
        "hidden": hidden,
        "activations": acts,
        "output_activation": model.get("output_activation", "Sigmoid"),
        "init": model.get("init", "Xavier"),
        "omega_0": model.get("omega_0", 30.0),
        "gauss_scale": model.get("gauss_scale", 10.0),  # engine/model_spec.h k_default_gauss_scale
        "first_bias_scale": model.get("first_bias_scale", 1.0),  # k_default_first_bias_scale
        "first_layer_scale": model.get("first_layer_scale", 0.0),
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
        "batch_cpu": None if "batch_cpu" not in train else (0 if train["batch_cpu"] == "full" else int(train["batch_cpu"])),
        "steps": train.get("steps", 2000),
        "seed": train.get("seed", 1),
        # "auto" counts as RGB, as channels_of(Auto) does in cuda_bench (its pattern image is coloured).
        "channels": 3 if data.get("color_mode", "auto") in ("rgb", "auto") else 1,
    }


def resolve_grid(p, w, h):
    """The grid of HashGrid preset P on a w x h image, as engine/model_spec.cpp resolves it
    (size_hash_grid_to_image, then hash_grid_params): (the summary the benchmarks record, each
    level's cells per side, each level's dense flag). No PyTorch needed."""
    L, F, log2 = p["n_levels"], p["n_features_per_level"], p["log2_hashmap_size"]
    base = p["base_resolution"]
    if log2 == "auto":  # the table's entries per level: the pixel count's nearest power of two
        log2 = min(max(round(math.log2(max(w * h, 1))), 12), 19)
    finest = p["finest_resolution"]
    if finest == "auto":  # one cell per pixel along the longer side
        finest = min(max(max(w, h), base), MAX_GRID_RESOLUTION)
    if finest and L > 1:
        scale = 2.0 ** (math.log2(finest / base) / (L - 1))
    else:
        scale = float(p["per_level_scale"])
    T = 1 << log2
    res = [math.floor(base * scale ** l + 1e-6) for l in range(L)]
    dense = [(n + 1) ** 2 <= T for n in res]
    summary = {"sizing": p.get("grid_sizing", "image"), "levels": L, "dense_levels": sum(dense),
               "features_per_level": F, "log2_hashmap_size": log2, "base_resolution": base,
               "finest_resolution": res[-1], "per_level_scale": scale,
               "entries": sum((n + 1) ** 2 if d else T for n, d in zip(res, dense))}
    return summary, res, dense


GRID_KEYS = ("levels", "dense_levels", "features_per_level", "log2_hashmap_size", "base_resolution",
             "finest_resolution", "entries")


def grid_from(path):
    """The grid recorded in PATH (a cuda_bench JSON or a bare grid object), or None."""
    with open(path) as f:
        j = json.load(f)
    if isinstance(j, dict) and "levels" in j:
        return j
    rows = j.get("throughput", []) if isinstance(j, dict) else j
    return next((r["grid"] for r in rows if isinstance(r, dict) and r.get("grid")), None)


def use_grid(p, grid):
    """P with GRID's fields in place of its own; SystemExit (2) when resolve_grid does not give back
    the same levels, dense levels and rows."""
    q = dict(p, n_levels=grid["levels"], n_features_per_level=grid["features_per_level"],
             log2_hashmap_size=grid["log2_hashmap_size"], base_resolution=grid["base_resolution"],
             finest_resolution=0, per_level_scale=grid["per_level_scale"], grid_sizing=grid.get("sizing", "given"))
    got = resolve_grid(q, 1, 1)[0]
    bad = [k for k in GRID_KEYS if got[k] != grid[k]]
    if bad:
        print(f"torch_reference: the grid given differs from the one it resolves to in {', '.join(bad)}: "
              f"given {grid}, resolved {got}")
        sys.exit(2)
    return q


def parse_args(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--presets", default="classic,siren,fourier")
    ap.add_argument("--sizes", default="")
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--precision", default="fp32", choices=["fp32", "tf32", "bf16", "auto", "fp16"])
    ap.add_argument("--modes", default="eager,compile")
    ap.add_argument("--json", default="")
    ap.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--seconds", type=float, default=0.0)
    ap.add_argument("--grid-from", default="", help="train the hash grid recorded in this JSON")
    return ap.parse_args(argv)


class Peer:
    """Where and how the peer runs: PyTorch, the device, the precision and the step count or time."""

    def __init__(self, torch, args):
        self.torch = torch
        self.args = args
        self.on_cpu = args.device == "cpu"
        self.dev = torch.device(args.device)
        # bf16 as Redraw's: matrix products with bf16 inputs, everything else fp32 (autocast keeps
        # fp32 weights; its matmul outputs are bf16, a little coarser than Redraw's fp32 outputs).
        self.tf32 = args.precision == "tf32"
        self.autocast = args.precision in ("bf16", "fp16")
        self.autocast_dtype = torch.float16 if args.precision == "fp16" else torch.bfloat16

    def sync(self):
        if not self.on_cpu:
            self.torch.cuda.synchronize()

    def where(self):
        if self.on_cpu:
            return f"CPU, {self.torch.get_num_threads()} threads, subnormals flushed"
        return self.torch.cuda.get_device_name(0)


def open_peer(args):
    """(the Peer, None), or (None, the exit code) where PyTorch, the GPU or the precision is missing."""
    on_cpu = args.device == "cpu"
    if on_cpu and args.threads > 0:
        # torch.set_num_threads sets only PyTorch's own OpenMP team: the BLAS that runs its matrix
        # products (Debian's torch calls OpenBLAS's pthread build) keeps one thread per core
        # unless told before it loads. Without this, "--threads 1" ran its sgemm on two cores.
        for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ[var] = str(args.threads)
    try:
        import torch
    except ImportError as e:
        print(f"torch_reference: SKIPPED: {'no CUDA device: ' if not on_cpu else ''}PyTorch is not installed ({e})")
        return None, 0
    if on_cpu:
        if args.threads > 0:
            torch.set_num_threads(args.threads)
        # Subnormals flushed, as Redraw's CPU backend computes (cpu/flushed_team.h): a Gauss or
        # Gabor window near the smallest normal float makes subnormal products, which Intel cores
        # run in microcode. This sets the calling thread, where PyTorch's ops and a one-thread
        # OpenBLAS run; OpenBLAS's own pool threads (more than one thread) keep IEEE subnormals.
        torch.set_flush_denormal(True)
    elif not torch.cuda.is_available():
        print("torch_reference: SKIPPED: no CUDA device: torch.cuda.is_available() is False")
        return None, 0
    peer = Peer(torch, args)
    if on_cpu and (peer.tf32 or peer.autocast):
        print("torch_reference: the CPU mode computes in fp32 only")
        return None, 2
    if not on_cpu:
        torch.backends.cuda.matmul.allow_tf32 = peer.tf32
        torch.backends.cudnn.allow_tf32 = peer.tf32
        torch.set_float32_matmul_precision("high" if peer.tf32 else "highest")
    return peer, None


def activation(torch, name, omega, scale):
    """The activation NAME as engine/activation_math.h computes it (autograd gives its derivative)."""
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
    if n == "finer":  # the scale |z| + 1 is differentiated too, as the engine's derivative
        return lambda z: torch.sin(omega * ((torch.abs(z) + 1) * z))
    if n == "gauss":
        return lambda z: torch.exp(-(scale * z) ** 2)
    if n == "gabor":
        return lambda z: torch.cos(omega * z) * torch.exp(-(scale * z) ** 2)
    raise ValueError(f"activation {name}")


def hash_grid(peer, p, g, w, h):
    """The levels, a trainable table (+-1e-4) and the encode function of a HashGrid preset.
    "auto" sizes resolve for the w x h image as size_hash_grid_to_image does (resolve_grid)."""
    torch, dev = peer.torch, peer.dev
    summary, res, dense = resolve_grid(p, w, h)
    L, F, T = summary["levels"], summary["features_per_level"], 1 << summary["log2_hashmap_size"]
    offset, total = [], 0
    for n, d in zip(res, dense):
        offset.append(total)
        total += (n + 1) ** 2 if d else T
    table = ((torch.rand(total, F, generator=g, dtype=torch.float64) * 2 - 1) * 1e-4).float()
    table = table.to(dev).requires_grad_()
    res_t = torch.tensor(res, dtype=torch.float32, device=dev)
    res_i = torch.tensor(res, dtype=torch.int64, device=dev)
    dense_t = torch.tensor(dense, device=dev)
    off_t = torch.tensor(offset, dtype=torch.int64, device=dev)
    smooth = p["interpolation"].lower() == "smoothstep"

    def encode(xy, tab):
        pos = ((xy + 1) * 0.5).unsqueeze(1) * res_t.view(1, L, 1)  # n x L x 2
        pos = torch.minimum(torch.clamp(pos, min=0), res_t.view(1, L, 1))
        cell = torch.minimum(torch.floor(pos), (res_t - 1).view(1, L, 1))
        f = pos - cell
        if smooth:
            f = f * f * (3 - 2 * f)
        c = cell.long()
        out = 0
        for dx, dy in ((0, 0), (1, 0), (0, 1), (1, 1)):
            vx, vy = c[..., 0] + dx, c[..., 1] + dy
            hashed = (vx ^ ((vy * 2654435761) & 0xFFFFFFFF)) & (T - 1)
            idx = torch.where(dense_t.view(1, L), vx + vy * (res_i.view(1, L) + 1), hashed) + off_t.view(1, L)
            wx = f[..., 0] if dx else 1 - f[..., 0]
            wy = f[..., 1] if dy else 1 - f[..., 1]
            out = out + (wx * wy).unsqueeze(-1) * tab[idx]  # n x L x F
        return out.reshape(xy.shape[0], L * F)

    return table, encode, L * F


def init_bounds(p, li, fan_in, fan_out):
    """Layer LI's weight and bias bounds (uniform, +-bound; a bias bound of 0 leaves the biases 0),
    as engine/model_spec.cpp's initial_parameters draws them."""
    init = p["init"].lower()
    if init == "xavier":
        wb, bb = math.sqrt(6.0 / (fan_in + fan_out)), 0.0
    elif init == "he":
        wb, bb = math.sqrt(6.0 / fan_in), 0.0
    elif init in ("siren", "finer"):
        # SIREN: first layer U(-1/n, 1/n), later U(-sqrt(6/n)/omega_0, +), biases as torch.nn.Linear;
        # FINER: the same, with the first layer's biases U(-first_bias_scale, +).
        wb = 1.0 / fan_in if li == 0 else math.sqrt(6.0 / fan_in) / p["omega_0"]
        bb = p["first_bias_scale"] if init == "finer" and li == 0 else 1.0 / math.sqrt(fan_in)
    elif init == "linear":  # torch.nn.Linear's default
        wb = bb = 1.0 / math.sqrt(fan_in)
    else:
        raise ValueError(f"init {p['init']}")
    if li == 0 and init in ("xavier", "he") and p["first_layer_scale"] > 0:
        wb = bb = p["first_layer_scale"]
    return wb, bb


def mlp_params(peer, p, g, widths):
    """The dense layers' weights and biases, [W0, b0, W1, b1, ...], trainable on the peer's device."""
    torch = peer.torch
    params = []
    for li in range(len(widths) - 1):
        fan_in, fan_out = widths[li], widths[li + 1]
        wb, bb = init_bounds(p, li, fan_in, fan_out)
        W = ((torch.rand(fan_out, fan_in, generator=g, dtype=torch.float64) * 2 - 1) * wb).float()
        b = ((torch.rand(fan_out, generator=g, dtype=torch.float64) * 2 - 1) * bb).float()
        params += [W.to(peer.dev).requires_grad_(), b.to(peer.dev).requires_grad_()]
    return params


def pattern(peer, p, w, h):
    """The pixel centres in [-1, 1] and a smooth w x h test pattern, one row per pixel."""
    torch = peer.torch
    xs = (2 * (torch.arange(w, dtype=torch.float32) + 0.5)) / w - 1
    ys = (2 * (torch.arange(h, dtype=torch.float32) + 0.5)) / h - 1
    coords = torch.stack(torch.meshgrid(ys, xs, indexing="ij")[::-1], dim=-1).reshape(-1, 2).to(peer.dev)
    gx = torch.linspace(0, 17, w).view(1, w)
    gy = torch.linspace(0, 11, h).view(h, 1)
    img = torch.stack([0.5 + 0.45 * torch.sin(gx + gy + c) for c in range(p["channels"])], -1)
    return coords, img.reshape(-1, p["channels"]).float().to(peer.dev)


def input_encoder(torch, p, enc, B):
    """The fixed input encoding (identity, positional or Fourier features) of a batch of coordinates."""
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
    return encode


def make_loss(torch, p, grid, acts):
    """loss(x, targets, *params): the network's forward pass and the preset's loss."""
    loss_kind = p["loss"].lower()

    def loss_fn(x, t, *ps):
        if grid:  # the table is the first tensor; x holds coordinates
            x, ps = grid[1](x, ps[0]), ps[1:]
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
    return loss_fn


def make_optimizer(peer, p, params, grid):
    """(every trainable tensor, the table first where there is one; the optimizer)."""
    torch = peer.torch
    groups = [{"params": params, "weight_decay": p["weight_decay"]}]
    if grid:
        params = [grid[0]] + params
        groups.append({"params": [grid[0]], "weight_decay": 0.0})
    if p["optimizer"].lower() == "adam":
        # The fused Adam kernel for the hash grid's millions of table entries (a fair peer for
        # Redraw's one-launch update); the other presets keep the default, as measured before.
        opt = torch.optim.Adam(groups, lr=p["lr_max"], betas=(p["beta1"], p["beta2"]), eps=p["epsilon"],
                               **({"fused": True} if grid and not peer.on_cpu else {}))
    else:
        opt = torch.optim.SGD(groups, lr=p["lr_max"], momentum=p["momentum"], nesterov=p["nesterov"])
    return params, opt


def build(peer, p, w, h):
    torch = peer.torch
    g = torch.Generator(device="cpu").manual_seed(int(p["seed"]))
    enc = p["encoding"].lower()
    if enc not in ("identity", "positional", "fourier", "hashgrid"):
        raise ValueError(f"no PyTorch peer for the {p['encoding']} encoding")
    grid = hash_grid(peer, p, g, w, h) if enc == "hashgrid" else None
    in_w = grid[2] if grid else {"identity": 2, "positional": 2 + 4 * p["levels"], "fourier": 2 * p["features"]}[enc]
    params = mlp_params(peer, p, g, [in_w] + list(p["hidden"]) + [p["channels"]])
    acts = [activation(torch, a, p["omega_0"], p["gauss_scale"]) for a in p["activations"] + [p["output_activation"]]]
    B = (torch.randn(p["features"], 2, generator=g) * p["sigma"]).to(peer.dev) if enc == "fourier" else None
    coords, targets = pattern(peer, p, w, h)
    encode = input_encoder(torch, p, enc, B)
    loss_fn = make_loss(torch, p, grid, acts)
    # The encoded full batch is computed once, as the CUDA backend caches it (not a hash
    # grid's: its table trains).
    if grid:
        encode = lambda xy: xy  # noqa: E731 (coordinates go in; loss_fn encodes with the table)
    encoded = encode(coords) if p["batch"] == 0 else None
    params, opt = make_optimizer(peer, p, params, grid)
    return params, opt, loss_fn, encoded, coords, targets, encode


def lr_at(p, step):
    if p["schedule"].lower() == "constant":
        return p["lr_max"]
    period = p["period"] or p["steps"]
    s = min(step, period)
    return p["lr_min"] + (p["lr_max"] - p["lr_min"]) * 0.5 * (1 + math.cos(math.pi * s / period))


def run_one(peer, p, name, size, mode):
    torch, args, dev = peer.torch, peer.args, peer.dev
    torch.manual_seed(p["seed"])
    params, opt, loss_fn, encoded, coords, targets, encode = build(peer, p, size, size)
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
        with torch.autocast(args.device, dtype=peer.autocast_dtype, enabled=peer.autocast):
            loss = fn(x, t, *params)
        loss.backward()
        opt.step()

    for i in range(5 if not peer.on_cpu else 2):
        step(i)
    peer.sync()
    t0 = time.perf_counter()
    c0 = time.process_time()
    steps = 0
    while steps < args.steps or time.perf_counter() - t0 < args.seconds:
        step(5 + steps)
        steps += 1
        if args.seconds and time.perf_counter() - t0 >= args.seconds:
            break
    peer.sync()
    wall = time.perf_counter() - t0
    with torch.no_grad():  # over every pixel: what the peer learnt in its timed steps
        final_loss = float(loss_fn(encoded if encoded is not None else encode(coords), targets, *params))
    cores = (time.process_time() - c0) / wall  # CPU seconds per second: the cores it really used
    r = {"impl": "torch-" + mode, "preset": name, "size": size, "batch": batch, "device": args.device,
         "threads": torch.get_num_threads() if peer.on_cpu else 0,
         "precision": args.precision, "steps_per_s": steps / wall,
         "samples_per_s": steps / wall * batch, "cpu_cores_used": cores, "torch": torch.__version__,
         "grid": resolve_grid(p, size, size)[0] if p["encoding"].lower() == "hashgrid" else None,
         "final_loss": final_loss}
    print(f"{name:8} {size:6d} {mode:>8} {batch:8d} {r['steps_per_s']:9.1f} {r['samples_per_s']:11.3g}"
          f" {cores:6.2f}", flush=True)
    return r


def preset_for(args, name, given_grid):
    """Preset NAME as this run trains it: the given grid in place of its own, the CPU's batch on the CPU."""
    p = load_preset(name)
    if given_grid is not None and p["encoding"].lower() == "hashgrid":
        p = use_grid(p, given_grid)
    if args.device == "cpu" and p["batch_cpu"] is not None:
        p["batch"] = p["batch_cpu"]
    return p


def main(argv=None):
    args = parse_args(argv)
    given_grid = grid_from(args.grid_from) if args.grid_from else None
    if args.grid_from and given_grid is None:
        print(f"torch_reference: no grid in {args.grid_from}")
        return 2
    peer, code = open_peer(args)
    if peer is None:
        return code
    print(f"torch {peer.torch.__version__}, {peer.where()}, precision {args.precision}")
    results = []
    print(f"{'preset':8} {'size':>6} {'mode':>8} {'batch':>8} {'steps/s':>9} {'samples/s':>11} {'cores':>6}")
    for name in [s for s in args.presets.split(",") if s]:
        p = preset_for(args, name, given_grid)
        sizes = [int(s) for s in args.sizes.split(",") if s] or [200 if name == "classic" else 256, 512]
        for size in sizes:
            for mode in [m for m in args.modes.split(",") if m]:
                try:
                    results.append(run_one(peer, p, name, size, mode))
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
