"""The query encoder without torch: the sentence-transformers model exported to ONNX at index-build time, run with
ONNX Runtime and the model's own `tokenizers` tokenizer, with langchain-core's `Embeddings` methods.

Building (`export`) needs torch and transformers; answering (`OnnxEmbeddings`) needs only onnxruntime, tokenizers and
numpy, so a cold free-form answer does not pay for importing torch. `OnnxEncoder` has the `Embeddings` interface's
methods without subclassing it: importing that base class pulls in langchain-core's callback and tracing machinery
(~0.15 s of a 1 s cold answer). A langchain consumer gets it as a real `Embeddings` through
`bot.vectorstore.as_embeddings` (which `Index.vectorstore()` uses). Pooling and normalisation follow the model's own
sentence-transformers config (mean of the token vectors, L2-normalised, 256 tokens at most)."""

from __future__ import annotations

import atexit
import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np

ENCODER_DIR = "encoder"
MODEL_FILE = "model.onnx"
WEIGHTS_FILE = "model.onnx.data"  # the weights, beside the graph: ONNX Runtime maps them instead of copying them
TOKENIZER_FILE = "tokenizer.json"
CONFIG_FILE = "encoder.json"


# what the index manifest records of an export, and checks at every start
ENCODER_KEYS = ("model_sha256", "model_bytes", "weights_sha256", "weights_bytes", "tokenizer_sha256")


class EncoderError(RuntimeError):
    """The exported encoder is missing, unreadable or does not match the index."""


def file_hash(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _pooling(model_path: Path) -> tuple[str, int, bool]:
    """(pooling, max tokens, normalise) from the model's sentence-transformers config files."""
    pool = "mean"
    cfg = model_path / "1_Pooling" / "config.json"
    if cfg.exists():
        d = json.loads(cfg.read_text(encoding="utf-8"))
        pool = "cls" if d.get("pooling_mode_cls_token") else "max" if d.get("pooling_mode_max_tokens") else "mean"
    max_len = 256
    sb = model_path / "sentence_bert_config.json"
    if sb.exists():
        max_len = int(json.loads(sb.read_text(encoding="utf-8")).get("max_seq_length", max_len))
    normalise = True
    modules = model_path / "modules.json"
    if modules.exists():
        normalise = any("Normalize" in m.get("type", "") for m in json.loads(modules.read_text(encoding="utf-8")))
    return pool, max_len, normalise


_EXPORTED: dict[str, Path] = {}  # model path -> a folder this process already exported it to


def export(model_path: str, out_dir: Path) -> dict:
    """Export the transformer to ONNX next to the index, with its tokenizer and pooling config. Returns the config
    (its file hashes go into the index manifest). A second export of the same model in one process copies the first."""
    import warnings

    done = _EXPORTED.get(str(model_path))
    if done is not None and (done / CONFIG_FILE).exists() and done != out_dir:
        shutil.copytree(done, out_dir, dirs_exist_ok=True)
        return json.loads((out_dir / CONFIG_FILE).read_text(encoding="utf-8"))

    import torch
    from transformers import AutoModel

    src = Path(model_path)
    out_dir.mkdir(parents=True, exist_ok=True)
    model = AutoModel.from_pretrained(str(src)).eval()

    class _LastHidden(torch.nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.m(input_ids=input_ids, attention_mask=attention_mask,
                          token_type_ids=token_type_ids).last_hidden_state

    sample = torch.ones((2, 8), dtype=torch.long)
    axes = {"input_ids": {0: "batch", 1: "tokens"}, "attention_mask": {0: "batch", 1: "tokens"},
            "token_type_ids": {0: "batch", 1: "tokens"}, "last_hidden_state": {0: "batch", 1: "tokens"}}
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(_LastHidden(model), (sample, sample, torch.zeros_like(sample)), str(out_dir / MODEL_FILE),
                          input_names=["input_ids", "attention_mask", "token_type_ids"],
                          output_names=["last_hidden_state"], dynamic_axes=axes, opset_version=17, dynamo=False)
    _optimise(out_dir / MODEL_FILE)
    shutil.copyfile(src / TOKENIZER_FILE, out_dir / TOKENIZER_FILE)
    pool, max_len, normalise = _pooling(src)
    config = {"pooling": pool, "max_seq_length": max_len, "normalize": normalise,
              "model_bytes": (out_dir / MODEL_FILE).stat().st_size, "model_sha256": file_hash(out_dir / MODEL_FILE),
              "weights_bytes": (out_dir / WEIGHTS_FILE).stat().st_size,
              "weights_sha256": file_hash(out_dir / WEIGHTS_FILE),
              "tokenizer_sha256": file_hash(out_dir / TOKENIZER_FILE), "exported_with": f"torch {torch.__version__}"}
    (out_dir / CONFIG_FILE).write_text(json.dumps(config, indent=2), encoding="utf-8")
    _EXPORTED[str(model_path)] = _keep_copy(out_dir)  # the index folder is swapped; keep a copy to reuse
    return config


def _keep_copy(folder: Path) -> Path:
    """A copy of an exported encoder for the rest of this process, removed when it exits (it is ~90 MB; every
    index build used to leave one in the temp folder)."""
    keep = Path(tempfile.mkdtemp(prefix="gpu-advisor-encoder-"))
    atexit.register(shutil.rmtree, keep, ignore_errors=True)
    shutil.copytree(folder, keep, dirs_exist_ok=True)
    return keep


def _optimise(path: Path) -> None:
    """Let ONNX Runtime fuse the graph once, at build time, and keep the result with its weights in a file of their
    own. Sessions then load it without optimising again, and map the weights from disk instead of parsing and
    copying them (measured: a third of the load time and ~70 MB less peak memory; same arithmetic)."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    tmp_dir = Path(tempfile.mkdtemp(prefix=".optimise-", dir=path.parent))
    try:
        opts.optimized_model_filepath = str(tmp_dir / MODEL_FILE)
        opts.add_session_config_entry("session.optimized_model_external_initializers_file_name", WEIGHTS_FILE)
        opts.add_session_config_entry("session.optimized_model_external_initializers_min_size_in_bytes", "1024")
        ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
        os.replace(tmp_dir / WEIGHTS_FILE, path.parent / WEIGHTS_FILE)
        os.replace(tmp_dir / MODEL_FILE, path)
    finally:
        shutil.rmtree(tmp_dir, ignore_errors=True)


def is_complete(enc_dir: Path, expected: dict | None) -> bool:
    """The files exist and are the ones the manifest recorded (by the hashes the export wrote and the files' sizes:
    cheap enough for every start; a damaged file of the same size fails to load and the index is rebuilt then)."""
    names = (MODEL_FILE, WEIGHTS_FILE, TOKENIZER_FILE, CONFIG_FILE)
    if not expected or not all((enc_dir / n).exists() for n in names):
        return False
    try:
        cfg = json.loads((enc_dir / CONFIG_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return all(cfg.get(k) == expected.get(k) for k in ENCODER_KEYS) and \
        (enc_dir / MODEL_FILE).stat().st_size == cfg.get("model_bytes") and \
        (enc_dir / WEIGHTS_FILE).stat().st_size == cfg.get("weights_bytes")


class OnnxEncoder:
    """The exported encoder with `Embeddings`' two methods: the same vectors as sentence-transformers."""

    def __init__(self, enc_dir: Path, threads: int | None = None):
        import onnxruntime as ort
        from tokenizers import Tokenizer

        enc_dir = Path(enc_dir)
        try:
            self.config = json.loads((enc_dir / CONFIG_FILE).read_text(encoding="utf-8"))
            self.tokenizer = Tokenizer.from_file(str(enc_dir / TOKENIZER_FILE))
            opts = ort.SessionOptions()
            opts.intra_op_num_threads = threads or min(4, os.cpu_count() or 1)
            opts.log_severity_level = 3
            opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL  # optimised at export
            opts.enable_cpu_mem_arena = False  # one query at a time: the arena only holds memory
            self.session = ort.InferenceSession(str(enc_dir / MODEL_FILE), opts, providers=["CPUExecutionProvider"])
        except Exception as e:  # missing or damaged files: the index is rebuilt by the caller
            raise EncoderError(f"the ONNX encoder in {enc_dir} cannot be loaded ({type(e).__name__}: {e})") from e
        self.tokenizer.enable_truncation(int(self.config.get("max_seq_length", 256)))
        self.tokenizer.enable_padding()
        self.inputs = {i.name for i in self.session.get_inputs()}

    def _encode(self, texts: list[str]) -> np.ndarray:
        enc = self.tokenizer.encode_batch([t if t.strip() else " " for t in texts])
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self.inputs:
            feeds["token_type_ids"] = np.array([e.type_ids for e in enc], dtype=np.int64)
        hidden = self.session.run(None, feeds)[0]
        pool = self.config.get("pooling", "mean")
        if pool == "cls":
            vec = hidden[:, 0]
        elif pool == "max":
            vec = np.where(mask[..., None] > 0, hidden, -1e9).max(axis=1)
        else:
            vec = (hidden * mask[..., None]).sum(axis=1) / np.maximum(mask.sum(axis=1, keepdims=True), 1)
        if self.config.get("normalize", True):
            vec = vec / np.maximum(np.linalg.norm(vec, axis=1, keepdims=True), 1e-12)
        return vec.astype(np.float32)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        out = []
        for i in range(0, len(texts), 32):
            out.extend(self._encode(texts[i:i + 32]).tolist())
        return out

    def embed_query(self, text: str) -> list[float]:
        return self._encode([text])[0].tolist()
