"""The import contract of docs/architecture.md: data flows one way, the answer path stays light, and nothing in the
repository depends on files outside it."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BOT = ROOT / "bot"

# module -> the bot modules it may import (anywhere in the file, functions included). Front ends are unrestricted.
ALLOWED: dict[str, set[str]] = {
    "need": set(),
    "i18n": {"need"},
    "slots": {"need", "slots", "catalog", "models"},  # money reads exchange rates, model names the model table
    "nlu": {"need", "slots", "catalog"},
    "acts": {"nlu", "encoder"},  # the sentence vectors it is trained on (build time)
    "config": set(),
    "catalog": {"need", "config", "i18n", "specdb"},  # table texts are Text values in both languages
    "specdb": set(),
    "perf": {"catalog"},
    "vram": {"catalog"},
    "models": {"catalog", "i18n"},
    "rentals": {"catalog", "i18n"},
    "ownership": {"catalog", "i18n", "need", "rentals"},
    "regions": {"i18n"},
    "features": {"catalog"},
    "lint": {"catalog", "features", "i18n", "knowledge", "ownership", "rentals", "slots", "specdb"},  # slots.spelling: the typo tables
    "fit": {"catalog", "i18n", "models"},
    "scorer": {"catalog", "perf", "vram", "need", "i18n", "fit", "models"},
    "knowledge": {"catalog", "config", "i18n"},
    "faissdocs": set(),
    "vectorstore": {"faissdocs"},
    "encoder": set(),
    "zhseg": set(),
    "index": {"catalog", "knowledge", "config", "faissdocs", "vectorstore", "encoder", "zhseg"},
    "retrieval": {"index", "knowledge", "catalog", "config", "slots", "nlu"},
    "reply": {"knowledge"},
    "answers": {"scorer", "catalog", "knowledge", "retrieval", "vram", "perf", "need", "reply", "i18n", "slots", "fit",
                "models", "rentals", "ownership", "regions", "features"},
    "session": {"need"},
    "engine": {"acts", "catalog", "config", "index", "encoder"},
    "dialogue": {"answers", "acts", "engine", "features", "i18n", "need", "nlu", "regions", "reply", "scorer", "session",
                 "slots"},
    "render": {"reply", "knowledge", "i18n"},
    "charts": {"reply", "engine", "session", "scorer", "perf", "need", "i18n", "catalog", "slots"},  # slots: to_script
    "store": {"session", "need"},
}
FRONT_ENDS = {"cli", "chat", "telegram", "__main__", "__init__"}


def _module_name(path: Path) -> str:
    rel = path.relative_to(BOT)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def _runtime_nodes(tree: ast.AST):
    """Every node but those under `if TYPE_CHECKING:` (type hints are not a dependency at run time)."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        yield node
        yield from _runtime_nodes(node)


def _bot_imports(path: Path, package: str = "bot") -> set[str]:
    """The modules of `package` that the file imports ('bot': answers, telegram, …; 'bot.telegram': its modules)."""
    prefix = package.split(".")
    depth = len(prefix)
    out = set()
    for node in _runtime_nodes(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[:depth] == prefix:
            parts = node.module.split(".")
            if len(parts) == depth:
                out.update(a.name for a in node.names)
            else:
                out.add(parts[depth])
        elif isinstance(node, ast.Import):
            out.update(a.name.split(".")[depth] for a in node.names if a.name.split(".")[:depth] == prefix
                       and len(a.name.split(".")) > depth)
    return out


MODULES = sorted(p for p in BOT.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(BOT)))
def test_imports_follow_the_layers(path):
    name = _module_name(path)
    if name in FRONT_ENDS:
        return
    assert name in ALLOWED, f"{path.name}: add it to the contract in docs/architecture.md and this test"
    extra = _bot_imports(path) - ALLOWED[name] - {name}
    assert not extra, f"bot/{path.relative_to(BOT)} imports {sorted(extra)}, which its layer may not"


# The Telegram front end's own layers (docs/architecture.md, bot/telegram/__init__.py): module -> the package's
# modules it may import. Handlers never build the Application; nothing below them imports the handlers.
TELEGRAM: dict[str, set[str]] = {
    "texts": set(),
    "redact": set(),
    "ratelimit": set(),
    "sending": set(),
    "keyboards": {"texts"},
    "outbox": {"keyboards", "sending"},
    "advisor": {"keyboards", "outbox", "ratelimit", "sending", "texts"},
    "handlers": {"advisor", "keyboards", "texts"},
    "buttons": {"advisor", "keyboards", "sending", "texts"},
    "polling": {"sending"},
    "webhook": {"handlers", "polling", "redact"},
    "app": {"advisor", "buttons", "handlers", "polling", "redact", "texts", "webhook"},
    "__init__": {"app", "handlers", "keyboards", "webhook"},
}


@pytest.mark.parametrize("path", sorted((BOT / "telegram").glob("*.py")), ids=lambda p: p.name)
def test_the_telegram_package_follows_its_layers(path):
    assert path.stem in TELEGRAM, f"{path.name}: add it to the contract in docs/architecture.md and this test"
    extra = _bot_imports(path, "bot.telegram") - TELEGRAM[path.stem]
    assert not extra, f"bot/telegram/{path.name} imports {sorted(extra)}, which its layer may not"
    assert not _bot_imports(path) & {"cli", "chat"}, "front ends do not import each other"
    builds = "ApplicationBuilder" in path.read_text(encoding="utf-8")
    assert builds == (path.stem == "app"), "the Application is built in one place, bot/telegram/app.py"


def test_answers_and_store_do_not_need_the_dialogue():
    for name in ("answers.py", "store.py", "charts.py", "scorer.py"):
        assert "dialogue" not in _bot_imports(BOT / name), name


HEAVY = ("torch", "transformers", "sentence_transformers", "sklearn", "langchain_huggingface")


@pytest.mark.parametrize("module", ["bot.dialogue", "bot.answers", "bot.nlu", "bot.acts", "bot.engine", "bot.cli"])
def test_no_heavy_import_at_module_level(module):
    """Importing the answer path must not import a deep-learning framework or scikit-learn."""
    code = (f"import sys, {module}; heavy = [m for m in {HEAVY!r} if m in sys.modules]; "
            "print(','.join(heavy))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "", f"{module} pulls in {out.stdout.strip()}"


OUTSIDE = ("../" + "shared", "/work/" + "shared")  # spelled apart so this file does not name them itself


def test_nothing_refers_to_files_outside_the_repository():
    tracked = subprocess.run(["git", "ls-files"], capture_output=True, text=True, cwd=ROOT).stdout.split()
    offenders = []
    for rel in tracked:
        path = ROOT / rel
        if path.suffix not in (".py", ".md", ".yaml", ".toml", ".cfg", ".txt", "") or not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="ignore")
        if any(outside in text for outside in OUTSIDE):
            offenders.append(rel)
    assert not offenders, f"these files cite paths outside the repository: {offenders}"
