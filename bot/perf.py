"""Relative performance per workload family, from specs (knowledge/perf-model.yaml); reference card = 1.0."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from pathlib import Path

from bot.catalog import GPU, MODULE_FORM_FACTORS, Catalog, parse_yaml


@dataclass(frozen=True)
class Family:
    name: str
    tensor: float
    bandwidth: float
    fp32: float
    benchmarks: tuple[str, ...]
    multi_gpu_efficiency: float
    multi_gpu_efficiency_module: float | None = None  # server modules (SXM) on NVLink/NVSwitch scale better


@dataclass(frozen=True)
class PerfModel:
    reference_gpu: str
    families: dict[str, Family]
    default_vendors: tuple[str, ...]
    fp16_training_since: date | None = None  # from then, cards with crippled FP16 are not picked for training
    lab_budget_usd: float = 30000.0  # from this budget, 4- and 8-card machines are ranked instead of single cards
    low_power_w: float = 250.0  # "quiet and low power" with no number: cards up to this board power
    whole_pc_gpu_share: float = 0.5  # of a whole PC's budget, what one card is chosen within
    whole_pc_gpu_share_multi: float = 0.65  # … and the cards of a machine of several
    shared_budget_usd: float = 5000.0  # from this budget a lab's or research group's shared machine has 4-8 cards

    def relative(self, gpu: GPU, family: str, reference: GPU, count: int = 1) -> float | None:
        """Speed of `count` x `gpu` relative to one reference card; None when the specs to judge are missing."""
        f = self.families[family]
        terms = []
        for exponent, mine, ref in ((f.tensor, _matmul(gpu), _matmul(reference)),
                                    (f.bandwidth, gpu.mem_bandwidth_gbs, reference.mem_bandwidth_gbs),
                                    (f.fp32, gpu.fp32_tflops, reference.fp32_tflops)):
            if exponent == 0:
                continue
            if not mine or not ref:
                return None
            terms.append((mine / ref) ** exponent)
        perf = 1.0
        for t in terms:
            perf *= t
        return perf * self.scaling(family, count, gpu)

    def efficiency(self, family: str, gpu: GPU | None = None) -> float:
        """What each doubling of the cards keeps of a perfect 2×: the family's measured figure, or the one measured on
        NVLink/NVSwitch servers for a server module."""
        f = self.families[family]
        module = gpu is not None and gpu.form_factor in MODULE_FORM_FACTORS
        return f.multi_gpu_efficiency_module if module and f.multi_gpu_efficiency_module else f.multi_gpu_efficiency

    def scaling(self, family: str, count: int, gpu: GPU | None = None) -> float:
        """Speed-up of `count` cards over one: each doubling multiplies by 2 x efficiency (Lambda's measurements)."""
        import math

        if count <= 1:
            return 1.0
        return (2 * self.efficiency(family, gpu)) ** math.log2(count)

    def table(self, catalog: Catalog) -> dict[str, dict[str, float]]:
        """{gpu name: {family: relative perf}} for every GPU whose specs allow it."""
        ref = catalog.get(self.reference_gpu)
        if ref is None:
            raise ValueError(f"the reference GPU '{self.reference_gpu}' of perf-model.yaml is not in the catalog")
        out = {}
        for g in catalog:
            vals = {fam: self.relative(g, fam, ref) for fam in self.families}
            out[g.name] = {k: round(v, 3) for k, v in vals.items() if v is not None}
        return out


def _matmul(gpu: GPU) -> float | None:
    """What dense matrix multiply runs at: tensor cores when present, else plain FP32 units."""
    return gpu.tensor_fp16_tflops or gpu.fp32_tflops


@lru_cache(maxsize=4)
def _lambda_one_gpu_rows(knowledge_dir: Path) -> dict[str, dict[str, str]]:
    """Lambda's one-GPU rows of knowledge/benchmarks/lambda-pytorch-train-throughput-fp16.csv by catalog name (the
    cards in lambda-map.csv)."""
    import csv

    bench = knowledge_dir / "benchmarks"
    with open(bench / "lambda-map.csv", encoding="utf-8") as f:
        names = {r["lambda_name"]: r["gpu"] for r in csv.DictReader(f)}
    with open(bench / "lambda-pytorch-train-throughput-fp16.csv", encoding="utf-8") as f:
        return {names[r["name_gpu"]]: r for r in csv.DictReader(f)
                if float(r["num_gpu"]) == 1 and r["name_gpu"] in names}


def lambda_throughput(knowledge_dir: Path, benchmark: str) -> dict[str, float]:
    """{catalog name: samples/s} that Lambda measured on one card for `benchmark` (PyTorch, FP16 mixed precision):
    'resnet50' is images a second."""
    return {g: float(r[benchmark]) for g, r in _lambda_one_gpu_rows(knowledge_dir).items() if r.get(benchmark)}


def lambda_relative(knowledge_dir: Path, benchmarks: tuple[str, ...], reference: str) -> dict[str, float]:
    """Lambda's measured one-GPU PyTorch FP16 training throughput as {catalog name: geometric mean over `benchmarks`
    of (card / reference card)}, for the cards in knowledge/benchmarks/lambda-map.csv."""
    import math

    rows = _lambda_one_gpu_rows(knowledge_dir)
    ref = rows[reference]
    out = {}
    for gpu, row in rows.items():
        logs = [math.log(float(row[b]) / float(ref[b])) for b in benchmarks if row.get(b) and ref.get(b)]
        if logs:
            out[gpu] = math.exp(sum(logs) / len(logs))
    return out


def rank_correlation(xs: list[float], ys: list[float]) -> float:
    """Spearman's rho (average ranks for ties)."""
    def ranks(v: list[float]) -> list[float]:
        order = sorted(range(len(v)), key=lambda i: v[i])
        r = [0.0] * len(v)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]:
                j += 1
            for k in range(i, j + 1):
                r[order[k]] = (i + j) / 2
            i = j + 1
        return r

    rx, ry = ranks(xs), ranks(ys)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    var = (sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry)) ** 0.5
    return cov / var if var else 0.0


@lru_cache(maxsize=4)
def load_perf_model(knowledge_dir: Path) -> PerfModel:
    data = parse_yaml((knowledge_dir / "perf-model.yaml").read_text(encoding="utf-8"))
    fams = {}
    for name, spec in data["families"].items():
        e = spec["exponents"]
        fams[name] = Family(name, float(e["tensor"]), float(e["bandwidth"]), float(e["fp32"]),
                            tuple(spec.get("benchmarks") or ()), float(spec.get("multi_gpu_efficiency", 1.0)),
                            float(spec["multi_gpu_efficiency_module"]) if spec.get("multi_gpu_efficiency_module")
                            else None)
    since = data.get("fp16_training_since")
    return PerfModel(data["reference_gpu"], fams, tuple(data.get("default_vendors") or ()),
                     since if isinstance(since, date) else (date.fromisoformat(since) if since else None),
                     float(data.get("lab_budget_usd", 30000)), float(data.get("low_power_w", 250)),
                     float(data.get("whole_pc_gpu_share", 0.5)), float(data.get("whole_pc_gpu_share_multi", 0.65)),
                     float(data.get("shared_budget_usd", 5000)))
