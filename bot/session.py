"""Session: one conversation's memory (the need so far, the last picks, the card in focus), as plain JSON-able data."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields

from bot.need import Need


@dataclass
class Session:
    """One conversation's memory. Plain data, so it can be stored as JSON and survive a restart."""

    lang: str | None = None
    lang_locked: str | None = None
    script: str | None = None  # Chinese replies in Traditional: 'zh-tw' or 'zh-hk' (zhconv locales); None: Simplified
    script_locked: bool = False  # chosen with /lang zh-Hant|zh-Hans, not followed from what the user writes
    need: Need = field(default_factory=Need)
    awaiting: str | None = None  # "budget" | "workload": the question we asked
    last_picks: list[str] = field(default_factory=list)
    earlier_picks: list[str] = field(default_factory=list)  # the list before last_picks: "回到刚才第一个推荐"
    focus: str | None = None  # the card last talked about: what "it" / "这张" means
    focus_count: int | None = None  # how many of it the last answer was about ("2× 3090": "how fast?" means both)
    focus_vram_gb: float | None = None  # memory the user said it has when not the catalog's (a modded 22 GB card)
    budget_aside: dict | None = None  # the budget "faster?" set aside or "more memory?" stretched, restored next
    last_act: str | None = None
    cards_act: str | None = None  # the last act whose answer was about cards: a general question after it leaves them
    last_rule: str | None = None  # the policy rule that answered last: "那5090呢" asks the same of another card
    last_topic: str | None = None
    pick_counts: dict[str, int] = field(default_factory=dict)  # picks that were setups of several cards ("2× 3090")
    compared: list[str] = field(default_factory=list)  # the cards the last comparison was about
    compared_counts: dict[str, int] = field(default_factory=dict)  # of those, the ones compared as setups ("2×")
    discussed: list[str] = field(default_factory=list)  # cards asked about one by one since the last list
    follow_up: str | None = None  # what the last answer's topic makes of a bare follow-up ("rent")
    rent_platforms: list[str] = field(default_factory=list)  # platforms the rental question named ("AutoDL 上 4090")
    rent_budget: dict | None = None  # money said to rent with ("100块能租多久"): "那4090呢" counts the same money
    turns: int = 0

    def to_dict(self) -> dict:
        d = asdict(self)
        d["need"] = self.need.to_dict()
        return d

    @classmethod
    def from_dict(cls, d: dict) -> Session:
        d = dict(d or {})
        if "need" not in d:  # a session saved before the Need value: its slots were flat
            flat = {k: d.get(k) for k in ("budget", "model_size_b", "finetune_method", "precision_bits", "gpu_count",
                                          "used", "vendor", "as_of", "min_vram_gb", "min_perf")}
            flat["workloads"] = [d["workload"]] if d.get("workload") else []
            flat["max_power_w"] = d.get("max_tdp_w")
            d["need"] = flat
        known = {f.name for f in fields(cls)}
        d = {k: v for k, v in d.items() if k in known}
        d["need"] = Need.from_dict(d.get("need"))
        return cls(**d)
