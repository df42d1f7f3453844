"""Need: what the user wants, as one value shared by the parser, the session and the scorer.

A turn's parsed Need is merged into the conversation's Need with `Need.merge`; the scorer ranks from a Need.
Slots the user has not stated are None (or empty): nothing here guesses."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from datetime import date

# ISO codes the advisor understands in a message; prices in the catalog are in CNY or USD.
CURRENCIES = ("CNY", "USD", "TWD", "HKD", "EUR", "GBP", "JPY", "KRW", "AUD", "CAD", "SGD", "INR")
PRICING_CURRENCIES = ("CNY", "USD")
CURRENCY_SYMBOLS = {"CNY": "¥", "USD": "$", "TWD": "NT$", "HKD": "HK$", "EUR": "€", "GBP": "£", "JPY": "JP¥",
                    "KRW": "₩", "AUD": "A$", "CAD": "C$", "SGD": "S$", "INR": "₹"}

WORKLOADS = ("cnn", "transformer", "rnn", "llm_inference", "llm_finetune", "diffusion", "video", "rl", "speech",
             "recsys", "scientific", "kaggle", "learning", "inference", "general")
LLM_WORKLOADS = ("llm_inference", "llm_finetune")
# a generic workload that names the kind of job the conversation's workload already is: "tokens per second?" after a
# 70B question is still running an LLM, not a new topic; "back to the ml stuff" after video generation is video again
NARROWER = {"inference": frozenset({"llm_inference", "diffusion", "video", "speech"}),
            "general": frozenset(WORKLOADS) - {"general"}}
FINETUNE_METHODS = ("full", "lora", "qlora")
DIRECTIONS = ("cheaper", "faster", "more_memory", "less_power")
REGIONS = ("cn", "tw", "hk", "us", "eu", "uk", "jp")
DAYS_PER_MONTH = 365.25 / 12  # a calendar month on average: what "a month" of hours is when hours are said per day


def format_money(amount: float, currency: str) -> str:
    """'¥8,000', '$1,500', '€2,000', 'JP¥150,000'."""
    return f"{CURRENCY_SYMBOLS.get(currency, currency + ' ')}{amount:,.0f}"


@dataclass(frozen=True)
class Budget:
    amount: float  # the upper bound
    currency: str  # an ISO code from CURRENCIES
    low: float | None = None  # a range's lower end ("5000-8000")
    approximate: bool = False  # "左右", "around": a little over is still in the spirit
    cheapest: bool = False  # not the user's: the ceiling set to look at the cheap end of what does the job ("cheapest?")

    def __str__(self) -> str:
        if self.low:
            return f"{format_money(self.low, self.currency)}–{format_money(self.amount, self.currency)}"
        return format_money(self.amount, self.currency)


@dataclass(frozen=True)
class Usage:
    """How many GPU-hours the user expects, as they said it: `hours` per `per` (day, week or month), or in `total`
    for one job ("200 hours of A100 time"). `approximate`: read from words without a number ("周末用用", "a few hours
    a day"), which the reply says it read so."""

    hours: float
    per: str  # day | week | month | total
    approximate: bool = False
    months: float | None = None  # how long the project runs at that rate ("a 3-month project, 8 hours a day")

    @property
    def hours_per_month(self) -> float | None:
        """The rate as hours a month (None for a total): what break-even months are counted in."""
        per_month = {"day": DAYS_PER_MONTH, "week": DAYS_PER_MONTH / 7, "month": 1.0}
        return self.hours * per_month[self.per] if self.per in per_month else None


_AUDIENCE = ("concurrent_users", "headcount", "daily_users")  # three ways of counting a served model's users


@dataclass(frozen=True)
class Need:
    """What the user wants. Every front end, the parser and the scorer speak this one type."""

    budget: Budget | None = None
    workloads: tuple[str, ...] = ()
    model_size_b: float | None = None
    finetune_method: str | None = None
    precision_bits: int | None = None
    gpu_count: int | None = None
    used: bool | None = None
    vendor: str | None = None
    also_vendor: str | None = None  # a maker added to the usual ones ("include AMD options"): both are ranked
    as_of: date | None = None
    min_vram_gb: float | None = None
    min_total_vram_gb: float | None = None  # memory in all, over however many cards ("more memory?" after two cards)
    system_ram_gb: float | None = None  # the computer's RAM ("64GB RAM"): where a model's offloaded layers go
    max_power_w: float | None = None
    psu_w: float | None = None
    region: str | None = None
    form_factor: str | None = None
    min_perf: float | None = None  # strictly faster than this relative speed ("faster?" after a pick)
    max_price: Budget | None = None  # strictly cheaper than this ("cheaper?" after a pick); the budget stays as said
    model: str | None = None  # a model of knowledge/models.csv, by its canonical name
    quant: str | None = None  # a quantisation format code of knowledge/quants.csv ("Q4_K_M")
    context_tokens: int | None = None
    owned_gpus: tuple[str, ...] = ()  # cards the user already has (one entry per card) to build on
    serving: bool | None = None  # serving many users (vLLM/SGLang), not one person chatting
    concurrent_users: int | None = None  # people using the model at once ("并发50", "30个人同时用"): KV cache for each
    headcount: int | None = None  # people who use it, not all at once ("20 staff", "a team of 15")
    daily_users: int | None = None  # an app's users in a day ("3000 daily users", "日活5000"): few of them at once
    kv_cache_bits: int | None = None  # a quantised KV cache (8 or 4); None: F16
    usage: Usage | None = None  # GPU-hours the user expects ("10 hours a week"): what rent-or-buy arithmetic uses
    dataset_samples: int | None = None  # a fine-tuning dataset's size ("10k samples"): how long an epoch takes
    dataset: str | None = None  # a public dataset named ("ImageNet"): its size and usual epochs time a training run
    image_px: int | None = None  # the image side trained at ("640分辨率", "at 1024px", a YOLO's default): an image run's cost
    train_tokens: int | None = None  # tokens to train on ("20B tokens"): how long the run takes
    epochs: int | None = None  # passes over the data ("3 epochs"): the run is that many times one pass
    kwh_price: Budget | None = None  # what the user pays for a kWh ("电费每度0.6"): running costs, rent or buy
    price_currency: str | None = None  # prices shown in this currency, asked with no amount ("same but in euros")
    quiet: bool | None = None  # noise matters ("it sits in my bedroom"): no passive server cards, advice on noise
    multi_gpu: bool | None = None  # several cards, how many not said ("多卡训练"): setups of 2 and 4 cards
    shared: bool | None = None  # a lab's or research group's machine ("实验室", "our lab"): a big enough budget buys 4-8 cards
    whole_pc: bool | None = None  # the budget is for the whole computer ("整机预算"): the cards get a share of it
    upgrade_from: tuple[str, ...] = ()  # cards the user has and means to replace: only faster or roomier ones count
    small_models: bool | None = None  # the job's usual memory floor ruled everything out: cards that train its small
    # models count (scorer.SMALL_MODELS_SHARE of the floor); set for one ranking, never kept by the conversation

    @property
    def workload(self) -> str | None:
        """The main workload (the first one named)."""
        return self.workloads[0] if self.workloads else None

    def is_empty(self) -> bool:
        return self == Need()

    def stated(self) -> dict:
        """The slots that hold a value."""
        return {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) not in (None, ())}

    @property
    def serves_many(self) -> bool:
        """A model served to several people at once: said outright (vLLM, "concurrent"), or a number of its users
        ("20 staff") when the job is running an LLM. A lab's "4 people" training together is not this."""
        llm_run = "llm_inference" in self.workloads or self.size_names_an_llm
        return bool(self.serving) or (llm_run and max(self.concurrent_users or 0, self.headcount or 0,
                                                        self.daily_users or 0) > 1)

    @property
    def size_names_an_llm(self) -> bool:
        """A size in billions with no job named is an LLM: "cheapest card for 70B", "how much VRAM for 13B?" then
        "with QLoRA?"."""
        return not self.workloads and (self.model_size_b or 0) >= 1

    def merge(self, turn: Need) -> Need:
        """This conversation's need after a turn that states `turn`.

        What the turn states wins. A turn that states a budget and a workload together is a new need: only where
        the user is (region), the date asked about (as_of: "back in 2020", `--as-of`) and how many hours they use a GPU
        (usage) carry over. A new workload drops what belonged to the old one (model size, method,
        precision, memory asked for it) and the vendor filter; a new budget drops a 'faster than' floor. Anything
        stated drops a 'cheaper than' ceiling: it was for the list it was asked of ("cheaper?" then "AMD?" looks at
        AMD cards within the budget), except the used market alone ("cheaper?" then "what about used cards?" is
        still the cheaper list)."""
        if turn.is_empty():
            return self
        if turn.max_price is None and set(turn.stated()) != {"used"}:  # ("cheaper?" then "used ok?": still cheaper)
            self = replace(self, max_price=None)
        if len(turn.workloads) == 1 and self.workloads and \
                set(self.workloads) <= NARROWER.get(turn.workloads[0], frozenset()):
            turn = replace(turn, workloads=self.workloads)
        if turn.budget is not None and turn.workloads:
            base = Need(region=self.region, as_of=self.as_of, usage=self.usage, kwh_price=self.kwh_price)
            if set(turn.workloads) == set(self.workloads):  # "ok, which card for the LoRA case, under $1000?"
                base = replace(base, model_size_b=self.model_size_b, model=self.model, quant=self.quant,
                               precision_bits=self.precision_bits, context_tokens=self.context_tokens)
        else:
            base = self
            if turn.workloads and turn.workloads != self.workloads:
                llm_before = bool(set(self.workloads) & set(LLM_WORKLOADS)) or self.size_names_an_llm
                llm_now = bool(set(turn.workloads) & set(LLM_WORKLOADS))
                drop = {"vendor": None, "also_vendor": None, "min_perf": None, "min_vram_gb": None, "min_total_vram_gb": None,
                        "dataset": None}
                if llm_before != llm_now:
                    drop.update(model_size_b=None, finetune_method=None, precision_bits=None, model=None, quant=None,
                                context_tokens=None, concurrent_users=None, headcount=None, daily_users=None)
                elif "llm_finetune" not in turn.workloads:
                    drop.update(finetune_method=None)
                base = replace(base, **drop)
            if turn.budget is not None:  # (a budget said in a currency is the currency prices are shown in)
                base = replace(base, min_perf=None, price_currency=None)
        if turn.model_size_b is not None and turn.model is None:
            base = replace(base, model=None)  # "what about 14B?": another size, not the model named before
        if turn.precision_bits is not None and turn.quant is None:
            base = replace(base, quant=None)
        if any(getattr(turn, k) for k in _AUDIENCE):  # "并发100" after "20 staff": the users counted the new way only
            base = replace(base, **dict.fromkeys(_AUDIENCE))
        return replace(base, **turn.stated())

    # --- JSON (the session store, `--json`) ------------------------------------------------------------------------
    def to_dict(self) -> dict:
        d = asdict(self)
        d["workloads"] = list(self.workloads)
        d["owned_gpus"] = list(self.owned_gpus)
        d["upgrade_from"] = list(self.upgrade_from)
        d["as_of"] = self.as_of.isoformat() if self.as_of else None
        return d

    @classmethod
    def from_dict(cls, d: dict | None) -> Need:
        known = {f.name for f in fields(cls)}
        d = {k: v for k, v in (d or {}).items() if k in known}
        for k in ("budget", "max_price", "kwh_price"):
            if d.get(k):
                d[k] = Budget(**d[k])
        if d.get("usage"):
            d["usage"] = Usage(**d["usage"])
        if d.get("as_of"):
            d["as_of"] = date.fromisoformat(d["as_of"])
        d["workloads"] = tuple(d.get("workloads") or ())
        d["owned_gpus"] = tuple(d.get("owned_gpus") or ())
        d["upgrade_from"] = tuple(d.get("upgrade_from") or ())
        return cls(**d)
