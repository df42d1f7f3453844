"""Re-fit the exponents of knowledge/perf-model.yaml against Lambda's measured one-GPU training throughput.

    perf = T^a * B^b * F^c   (T: FP16 tensor TFLOPS, or FP32 without tensor cores; B: bandwidth; F: FP32 TFLOPS;
                              each relative to the reference card)

For each family with benchmarks, a grid search (step 0.05 in [0, 1]) minimises the RMS log error against the geometric
mean measured speed (for CNNs also against Lambda's 2019 TensorFlow FP16 averages, which include cards without tensor
cores, each 2019 study with its own scale), under the guide's priority constraints:
  CNN / Transformer / LLM fine-tuning: a >= c (tensor cores weigh at least as much as FLOPs)
  RNN: b >= a and b >= c (memory bandwidth weighs most)
With --guide-order, CNN/Transformer also need a >= b (Dettmers 2019: tensor cores > FLOPs > bandwidth).

A fit is "clearly better" when its RMS log error is at most 80% of the current one and its rank correlation is not
lower; it is written to perf-model.yaml only with --write, and only if the scorer still reproduces the 2019 picks of
the seed article (as of 2019-04-03, CNN, no budget: best overall RTX 2070, best value RTX 2060, no Tesla/Quadro/TITAN).

Lambda's 2021-2023 PyTorch runs measured only cards with tensor cores, so on their own they cannot tell what a card
without them loses; the 2019 studies (GTX 1080 Ti, TITAN Xp) are what anchor the tensor exponent.

    .venv/bin/python bench/calibrate.py [--guide-order] [--write]
"""

from __future__ import annotations

import argparse
import itertools
import math
import re
import statistics
import sys
from dataclasses import replace
from datetime import date, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.catalog import load_catalog  # noqa: E402
from bot.perf import PerfModel, _matmul, lambda_relative, load_perf_model, rank_correlation  # noqa: E402

KNOWLEDGE = ROOT / "knowledge"
STEPS = [i / 20 for i in range(21)]
FIT_FAMILIES = ("cnn", "transformer", "rnn", "llm_finetune")
SEED_DATE = date(2019, 4, 3)
TYPICAL_TENSOR_TO_FP32 = 4.0  # Turing/Ampere GeForce: FP16 tensor (FP32 accumulate) ~ 4x FP32 TFLOPS

# Lambda's 2019 TensorFlow FP16 training studies (CNNs: ResNet, Inception, VGG, AlexNet, SSD; tensor cores used where
# present), as speed relative to the RTX 2080 Ti averaged over models. "x% faster than" -> 1 / (1 + x).
ANCHORS_2019 = {
    # the seed article's reference [2] (February 2019): 2080 Ti is 62% faster than 1080 Ti, 47% faster than 2080,
    # 3% faster than Titan V, 82% as fast as V100 (AWS P3, V100 SXM2 16GB)
    "https://lambdalabs.com/blog/best-gpu-tensorflow-2080-ti-vs-v100-vs-titan-v-vs-1080-ti-benchmark/": {
        "GeForce RTX 2080 Ti": 1.0, "GeForce GTX 1080 Ti": 1 / 1.62, "GeForce RTX 2080": 1 / 1.47,
        "TITAN V": 1 / 1.03, "Tesla V100 SXM2 16GB": 1 / 0.82},
    # TensorFlow 1.12 / CUDA 10: 72% faster than 1080 Ti, 59% faster than Titan Xp, 32% faster than 2080, 81% as fast
    # as Titan V, 71% as fast as Titan RTX, 55% as fast as V100 (32 GB, SXM)
    "https://lambdalabs.com/blog/2080-ti-deep-learning-benchmarks": {
        "GeForce RTX 2080 Ti": 1.0, "GeForce GTX 1080 Ti": 1 / 1.72, "TITAN Xp": 1 / 1.59, "GeForce RTX 2080": 1 / 1.32,
        "TITAN V": 1 / 0.81, "TITAN RTX": 1 / 0.71, "Tesla V100 SXM2 32GB": 1 / 0.55},
}
ANCHOR_FAMILIES = ("cnn",)


def allowed(family: str, a: float, b: float, c: float, guide_order: bool) -> bool:
    if family == "rnn":
        return b >= a and b >= c
    return a >= c and (not guide_order or a >= b)


def logs(catalog, reference: str, measured: dict[str, float], with_reference: bool = False
         ) -> list[tuple[str, float, float, float, float]]:
    """(gpu, log T ratio, log B ratio, log F ratio, log measured) for every measured card (but the reference)."""
    ref = catalog.get(reference)
    out = []
    for name, m in measured.items():
        if name == reference and not with_reference:
            continue
        g = catalog.get(name)
        out.append((name, math.log(_matmul(g) / _matmul(ref)), math.log(g.mem_bandwidth_gbs / ref.mem_bandwidth_gbs),
                    math.log(g.fp32_tflops / ref.fp32_tflops), math.log(m)))
    return out


def residuals(points, a: float, b: float, c: float, own_scale: bool = False) -> list[float]:
    r = [a * t + b * bw + c * f - m for _, t, bw, f, m in points]
    if own_scale:  # a study with its own reference: only the ratios between its cards count
        mean = statistics.fmean(r)
        r = [x - mean for x in r]
    return r


def stats(points, a: float, b: float, c: float, anchors=()) -> dict[str, float]:
    """RMS log error (over the 2023 points and the 2019 anchor groups), and on the 2023 points alone the median
    |predicted / measured - 1| and Spearman's rho."""
    pred = [a * t + b * bw + c * f for _, t, bw, f, _ in points]
    meas = [m for *_, m in points]
    all_r = residuals(points, a, b, c) + [x for g in anchors for x in residuals(g, a, b, c, own_scale=True)]
    return {
        "rms": math.sqrt(statistics.fmean(x * x for x in all_r)),
        "median": statistics.median(abs(math.exp(p - m) - 1) for p, m in zip(pred, meas, strict=True)),
        "rho": rank_correlation([math.exp(m) for m in meas], [math.exp(p) for p in pred]),
        "rms_2019": math.sqrt(statistics.fmean(x * x for g in anchors for x in residuals(g, a, b, c, True)))
        if anchors else float("nan"),
    }


def fit(points, family: str, guide_order: bool, anchors=()) -> tuple[tuple[float, float, float], dict[str, float]]:
    best = None
    for a, b, c in itertools.product(STEPS, STEPS, STEPS):
        if not allowed(family, a, b, c, guide_order):
            continue
        s = stats(points, a, b, c, anchors)
        key = (round(s["rms"], 9), -s["rho"], a + b + c)
        if best is None or key < best[0]:
            best = (key, (a, b, c), s)
    return best[1], best[2]


def anchor_groups(catalog) -> list[list[tuple[str, float, float, float, float]]]:
    return [logs(catalog, "GeForce RTX 2080 Ti", study, with_reference=True) for study in ANCHORS_2019.values()]


def reproduces_2019(catalog, model: PerfModel) -> tuple[bool, str]:
    from bot.need import Budget, Need  # noqa: F401 -- Budget kept for a budgeted check
    from bot.scorer import rank

    said = []
    ok = True
    for currency in ("USD", "CNY"):
        r = rank(catalog, Need(workloads=("cnn",), region="cn" if currency == "CNY" else None), KNOWLEDGE,
                 as_of=SEED_DATE, perf_model=model)
        roles = {p.role: p.gpu.name for p in r.picks}
        said.append(f"{currency}: overall {roles.get('overall')}, value {roles.get('value')}")
        ok &= roles.get("overall") == "GeForce RTX 2070" and roles.get("value") == "GeForce RTX 2060"
        ok &= not any(re.search(r"tesla|quadro|titan", roles.get(k, ""), re.I) for k in ("overall", "value"))
    return ok, "; ".join(said)


def write_exponents(path: Path, family: str, exps: tuple[float, float, float]) -> None:
    text = path.read_text(encoding="utf-8")
    pattern = re.compile(rf"(\n  {family}:\n(?:    [^\n]*\n)*?    exponents: )\{{[^}}]*\}}")
    new = f"{{tensor: {exps[0]:.2f}, bandwidth: {exps[1]:.2f}, fp32: {exps[2]:.2f}}}"
    text, n = pattern.subn(lambda m: m.group(1) + new, text, count=1)
    if n != 1:
        raise SystemExit(f"could not find the exponents of '{family}' in {path}")
    path.write_text(text, encoding="utf-8")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--guide-order", action="store_true", help="also require tensor >= bandwidth for CNN/Transformer")
    ap.add_argument("--write", action="store_true", help="write clearly better fits to knowledge/perf-model.yaml")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "calibration.md")
    args = ap.parse_args()

    catalog = load_catalog(KNOWLEDGE)
    model = load_perf_model(KNOWLEDGE)
    lines = [f"# Performance-model calibration ({datetime.now():%Y-%m-%d})", "",
             f"Reference: {model.reference_gpu} = 1.00. Measured: Lambda PyTorch FP16 training throughput, one GPU, "
             "geometric mean over each family's benchmarks. Constraints: " +
             ("guide order (tensor >= bandwidth, tensor >= FP32; RNN: bandwidth largest)" if args.guide_order else
              "tensor >= FP32 for CNN/Transformer; bandwidth largest for RNN") + ".", "",
             "| family | exponents (tensor, bandwidth, fp32) | RMS log error | median error (2023) | "
             "Spearman (2023) | RMS, 2019 studies | tensor-core advantage* |", "|---|---|---|---|---|---|---|"]
    chosen: dict[str, tuple[float, float, float]] = {}
    per_card = []
    for family in FIT_FAMILIES:
        fam = model.families[family]
        measured = lambda_relative(KNOWLEDGE, fam.benchmarks, model.reference_gpu)
        points = logs(catalog, model.reference_gpu, measured)
        anchors = anchor_groups(catalog) if family in ANCHOR_FAMILIES else []
        current = (fam.tensor, fam.bandwidth, fam.fp32)
        cur = stats(points, *current, anchors=anchors)
        best, new = fit(points, family, args.guide_order, anchors)
        clearly = new["rms"] <= 0.8 * cur["rms"] and new["rho"] >= cur["rho"] and best != current
        for label, exps, s in (("current", current, cur), ("best fit", best, new)):
            lines.append(f"| {family} ({label}) | {exps[0]:.2f}, {exps[1]:.2f}, {exps[2]:.2f} | {s['rms']:.3f} | "
                         f"{s['median']:.1%} | {s['rho']:.3f} | "
                         f"{'-' if math.isnan(s['rms_2019']) else format(s['rms_2019'], '.3f')} | "
                         f"{TYPICAL_TENSOR_TO_FP32 ** exps[0]:.2f}x |")
        verdict = "clearly better" if clearly else "not clearly better: keep the current exponents"
        lines.append(f"| {family}: {verdict} | | | | | | |")
        if clearly:
            chosen[family] = best
        per_card.append((family, points, anchors, current, best))

    lines += ["", "\\* speed-up that tensor cores give at equal bandwidth and FP32 (tensor TFLOPS = 4x FP32).", ""]
    for family, points, anchors, current, best in per_card:
        lines += [f"## {family}", "", f"Lambda PyTorch FP16, one GPU ({model.reference_gpu} = 1.00):", "",
                  "| GPU | measured | current | best fit |", "|---|---|---|---|"]
        for name, t, bw, f, m in sorted(points, key=lambda p: p[4]):
            cur_p = math.exp(current[0] * t + current[1] * bw + current[2] * f)
            new_p = math.exp(best[0] * t + best[1] * bw + best[2] * f)
            lines.append(f"| {name} | {math.exp(m):.2f} | {cur_p:.2f} ({cur_p / math.exp(m) - 1:+.0%}) | "
                         f"{new_p:.2f} ({new_p / math.exp(m) - 1:+.0%}) |")
        for url, group in zip(ANCHORS_2019, anchors, strict=False):
            lines += ["", f"Lambda 2019 TensorFlow FP16, relative to RTX 2080 Ti ({url}); error after the study's own "
                          "scale:", "", "| GPU | measured | current | best fit |", "|---|---|---|---|"]
            r_cur = residuals(group, *current, own_scale=True)
            r_new = residuals(group, *best, own_scale=True)
            for (name, *_, m), e_cur, e_new in zip(group, r_cur, r_new, strict=True):
                lines.append(f"| {name} | {math.exp(m):.2f} | {math.exp(e_cur) - 1:+.0%} | {math.exp(e_new) - 1:+.0%} |")
        lines.append("")

    if chosen:
        fams = dict(model.families)
        for family, (a, b, c) in chosen.items():
            fams[family] = replace(fams[family], tensor=a, bandwidth=b, fp32=c)
        candidate = replace(model, families=fams)
        ok, said = reproduces_2019(catalog, candidate)
        lines.append(f"2019 check with the clearly better fits ({', '.join(chosen)}): {'passes' if ok else 'FAILS'} "
                     f"({said}).")
        if args.write and ok:
            for family, exps in chosen.items():
                write_exponents(KNOWLEDGE / "perf-model.yaml", family, exps)
            lines.append("Written to knowledge/perf-model.yaml.")
        elif args.write:
            lines.append("Not written: the 2019 check fails.")
        else:
            lines.append("Not written (run with --write to apply).")
    else:
        lines.append("No family has a clearly better fit: perf-model.yaml stays as it is.")
    ok, said = reproduces_2019(catalog, model)
    lines.append(f"2019 check with the current exponents: {'passes' if ok else 'FAILS'} ({said}).")

    text = "\n".join(lines) + "\n"
    print(text)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
